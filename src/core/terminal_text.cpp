// Terminal-safe text (core/terminal_text.h).
#include "core/terminal_text.h"

#include <unistd.h>

#include <iostream>
#include <mutex>
#include <streambuf>

#include "core/utf8.h"

namespace plumb {

namespace {

constexpr char kEsc = '\x1b';
// Parameters of an escape sequence longer than this are not plumb's: shown, not held.
constexpr std::size_t kMaxSequence = 24;

// The Unicode control picture of a C0 control or DEL (U+2400-U+241F, U+2421), as UTF-8.
void control_picture(unsigned char c, std::string& out) {
  const unsigned code = c == 0x7f ? 0x2421U : 0x2400U + c;
  out.push_back(static_cast<char>(0xE0U | (code >> 12U)));
  out.push_back(static_cast<char>(0x80U | ((code >> 6U) & 0x3FU)));
  out.push_back(static_cast<char>(0x80U | (code & 0x3FU)));
}

// Whether every parameter of an SGR sequence is a plain attribute or a foreground colour: no
// blink, no conceal, no background (which can match the foreground and hide text).
bool plain_sgr(std::string_view params) {
  std::size_t at = 0;
  while (true) {
    const std::size_t end = params.find(';', at);
    std::string_view p = params.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    if (p.size() > 2) return false;
    int n = 0;
    for (char d : p) n = n * 10 + (d - '0');  // digits only (checked by the caller)
    const bool ok = n <= 4 || (n >= 22 && n <= 24) || (n >= 30 && n <= 37) || n == 39 || (n >= 90 && n <= 97);
    if (!ok) return false;
    if (end == std::string_view::npos) return true;
    at = end + 1;
  }
}

}  // namespace

std::size_t TerminalFilter::filter(std::string_view data, std::string& out, bool last) const {
  std::size_t i = 0;
  const std::size_t n = data.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(data[i]);
    if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
      // A run of plain text at once.
      std::size_t j = i + 1;
      while (j < n) {
        const auto d = static_cast<unsigned char>(data[j]);
        if (!(d == '\n' || d == '\t' || (d >= 0x20 && d < 0x7f))) break;
        ++j;
      }
      out.append(data.substr(i, j - i));
      i = j;
      continue;
    }
    if (c == static_cast<unsigned char>(kEsc) && keep_colour_) {
      // ESC [ params final: kept when it is a plain SGR, or the live view's cursor home or clear.
      std::size_t j = i + 1;
      if (j < n && data[j] == '[') {
        ++j;
        while (j < n && j - i < kMaxSequence && ((data[j] >= '0' && data[j] <= '9') || data[j] == ';')) ++j;
        if (j >= n && !last) return i;  // ends inside: held (at most kMaxSequence bytes)
        if (j < n) {
          const std::string_view params = data.substr(i + 2, j - i - 2);
          const char final = data[j];
          if ((final == 'm' && plain_sgr(params)) || (final == 'H' && params.empty()) || (final == 'J' && params == "2")) {
            out.append(data.substr(i, j + 1 - i));
            i = j + 1;
            continue;
          }
        }
      } else if (j >= n && !last) {
        return i;  // a lone ESC at the end: held
      }
    }
    if (c < 0x20 || c == 0x7f) {
      control_picture(c, out);
      ++i;
      continue;
    }
    const int len = utf8_char_length(data, i);
    if (len < 0 && !last) return i;  // ends inside a character: held
    if (len <= 0 || (c == 0xC2 && static_cast<unsigned char>(data[i + 1]) < 0xA0)) {
      out.append(kUtf8Replacement);  // not UTF-8, or a C1 control (U+0080-U+009F)
      i += len <= 0 ? 1 : static_cast<std::size_t>(len);
      continue;
    }
    out.append(data.substr(i, static_cast<std::size_t>(len)));
    i += static_cast<std::size_t>(len);
  }
  return n;
}

void TerminalFilter::feed(std::string_view chunk, std::string& out) {
  if (held_.empty()) {
    const std::size_t at = filter(chunk, out, false);
    held_.assign(chunk.substr(at));
    return;
  }
  std::string data = std::move(held_);
  data.append(chunk);
  const std::size_t at = filter(data, out, false);
  held_.assign(std::string_view(data).substr(at));
}

void TerminalFilter::finish(std::string& out) {
  (void)filter(held_, out, true);
  held_.clear();
}

std::string terminal_text(std::string_view text, bool keep_colour) {
  TerminalFilter f(keep_colour);
  std::string out;
  out.reserve(text.size());
  f.feed(text, out);
  f.finish(out);
  return out;
}

// A stream buffer that filters what it is given into another one. Writes from several threads
// take turns (the standard streams' own buffers allow that).
class TerminalStreams::Buf : public std::streambuf {
 public:
  Buf(std::streambuf* dest, bool keep_colour) : dest_(dest), filter_(keep_colour) {}
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  Buf(Buf&&) = delete;
  Buf& operator=(Buf&&) = delete;
  ~Buf() override = default;

  std::streambuf* dest() const { return dest_; }

  void finish() {
    std::lock_guard<std::mutex> lock(mu_);
    pass_on();
    std::string out;
    filter_.finish(out);
    dest_->sputn(out.data(), static_cast<std::streamsize>(out.size()));
    dest_->pubsync();
  }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(ch);
    if (pending_.size() >= kFlushAt) pass_on();
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.append(s, static_cast<std::size_t>(n));
    if (pending_.size() >= kFlushAt) pass_on();
    return n;
  }
  int sync() override {
    std::lock_guard<std::mutex> lock(mu_);
    pass_on();
    return dest_->pubsync();
  }

 private:
  static constexpr std::size_t kFlushAt = 8192;
  void pass_on() {
    std::string out;
    filter_.feed(pending_, out);
    pending_.clear();
    dest_->sputn(out.data(), static_cast<std::streamsize>(out.size()));
  }

  std::streambuf* dest_;
  TerminalFilter filter_;
  std::mutex mu_;
  std::string pending_;
};

namespace {
std::streambuf* raw_stderr_buf = nullptr;  // set while a TerminalStreams filters std::cerr
}  // namespace

TerminalStreams::TerminalStreams() {
  if (::isatty(STDOUT_FILENO) != 0) {
    out_ = std::make_unique<Buf>(std::cout.rdbuf(), true);
    std::cout.rdbuf(out_.get());
  }
  if (::isatty(STDERR_FILENO) != 0) {
    err_ = std::make_unique<Buf>(std::cerr.rdbuf(), false);
    raw_stderr_buf = err_->dest();
    std::cerr.rdbuf(err_.get());
  }
}

TerminalStreams::~TerminalStreams() {
  if (out_) {
    out_->finish();
    std::cout.rdbuf(out_->dest());
  }
  if (err_) {
    err_->finish();
    std::cerr.rdbuf(err_->dest());
    raw_stderr_buf = nullptr;
  }
}

std::ostream& unfiltered_stderr() {
  if (raw_stderr_buf == nullptr) return std::cerr;
  static std::ostream raw(raw_stderr_buf);
  return raw;
}

}  // namespace plumb
