// Streamed log reading and line clean-up for `plumb diagnose` (see log_reader.h).
#include "analyze/log_reader.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "core/host_root.h"

namespace plumb {

LogReader::LogReader(std::unique_ptr<trace::ByteSource> src, std::string name)
    : src_(std::move(src)), name_(std::move(name)) {
  buf_.resize(kBlock);
}

Result<LogReader> LogReader::open(const std::string& path) {
  if (path == "-") {
    int fd = ::dup(STDIN_FILENO);
    if (fd < 0) return make_error(ErrorKind::io, "stdin: " + errno_text(errno));
    auto src = trace::open_fd_source(fd, "stdin");
    if (!src) return src.error();
    return LogReader(std::move(src.value()), "stdin");
  }
  // open_trace_file opens through open_user_file: regular files only, never blocking on a FIFO.
  auto src = trace::open_trace_file(path);
  if (!src) return src.error();
  return LogReader(std::move(src.value()), path);
}

LogReader LogReader::from_memory(std::string_view data, const std::string& name) {
  return LogReader(trace::memory_source(data, name), name);
}

Result<std::string_view> LogReader::next_block() {
  // Drop what the last call handed out; the unfinished line moves to the front.
  if (given_ > 0) {
    std::memmove(buf_.data(), buf_.data() + given_, carry_);
    given_ = 0;
  }
  while (true) {
    if (eof_) {
      given_ = carry_;
      carry_ = 0;
      return std::string_view(buf_.data(), given_);
    }
    if (carry_ == buf_.size()) {
      if (buf_.size() >= kMaxLine) {  // one endless line: hand it out cut
        given_ = carry_;
        carry_ = 0;
        return std::string_view(buf_.data(), given_);
      }
      buf_.resize(buf_.size() * 2);
    }
    auto r = src_->read(buf_.data() + carry_, buf_.size() - carry_);
    if (!r) return r.error();
    if (*r == 0) {
      eof_ = true;
      continue;
    }
    std::size_t old = carry_;
    carry_ += *r;
    bytes_ += *r;
    // The last newline of the new bytes ends the block.
    const char* base = buf_.data();
    const void* nl = ::memrchr(base + old, '\n', carry_ - old);
    if (nl == nullptr) continue;
    std::size_t end = static_cast<std::size_t>(static_cast<const char*>(nl) - base) + 1;
    given_ = end;
    carry_ -= end;
    return std::string_view(base, end);
  }
}

bool has_escape(std::string_view block) { return std::memchr(block.data(), 0x1b, block.size()) != nullptr; }

std::string strip_ansi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    char c = text[i];
    if (c != '\x1b') {
      out.push_back(c);
      ++i;
      continue;
    }
    if (i + 1 < n && text[i + 1] == '[') {  // CSI: parameters and intermediates, then a final byte 0x40-0x7e
      std::size_t j = i + 2;
      while (j < n && text[j] != '\n' && (static_cast<unsigned char>(text[j]) < 0x40 || static_cast<unsigned char>(text[j]) > 0x7e)) ++j;
      i = (j < n && text[j] != '\n') ? j + 1 : j;
      continue;
    }
    if (i + 1 < n && text[i + 1] == ']') {  // OSC: up to BEL or ESC backslash
      std::size_t j = i + 2;
      while (j < n && text[j] != '\a' && text[j] != '\n' && !(text[j] == '\x1b' && j + 1 < n && text[j + 1] == '\\')) ++j;
      if (j < n && text[j] == '\a') i = j + 1;
      else if (j < n && text[j] == '\x1b') i = j + 2;
      else i = j;
      continue;
    }
    i += (i + 1 < n && text[i + 1] != '\n') ? 2 : 1;  // a two-byte escape, or a lone ESC
  }
  return out;
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Length of a prefix at the front of `s` that is no part of the message, or 0.
std::size_t prefix_length(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  // "[rank3]:" / "[rank3]" / "[Rank 3]:" / "[1,0]<stderr>:" (Open MPI --tag-output)
  if (n > 2 && s[0] == '[') {
    auto close = s.find(']');
    if (close != std::string_view::npos && close < 32) {
      std::string_view in = s.substr(1, close - 1);
      bool rank = in.starts_with("rank") || in.starts_with("Rank");
      bool mpi = !in.empty() && is_digit(in[0]) && in.find_first_not_of("0123456789,") == std::string_view::npos;
      // "[74785.660366]" (dmesg) and "[2024-06-17 15:17:35]" (bracketed time stamps)
      bool stamp = !in.empty() && in.find_first_not_of("0123456789.:-T ,Z+ ") == std::string_view::npos && is_digit(in.back());
      if (rank || mpi || stamp) {
        i = close + 1;
        if (mpi && s.substr(i).starts_with("<stdout>")) i += 8;
        if (mpi && s.substr(i).starts_with("<stderr>")) i += 8;
        if (i < n && s[i] == ':') ++i;
        while (i < n && s[i] == ' ') ++i;
        return i;
      }
    }
  }
  // "3: " (torchrun --tee, srun -l), "2024-06-17T15:17:35.519Z ", "2024-06-17 15:17:35,519 "
  while (i < n && is_digit(s[i])) ++i;
  if (i > 0 && i <= 5 && i + 1 < n && s[i] == ':' && s[i + 1] == ' ') return i + 2;
  if (i == 4 && n > 19 && s[4] == '-' && is_digit(s[5]) && s[7] == '-' && (s[10] == 'T' || s[10] == ' ') && s[13] == ':') {
    std::size_t j = 11;
    while (j < n && (is_digit(s[j]) || s[j] == ':' || s[j] == '.' || s[j] == ',' || s[j] == 'Z' || s[j] == '+')) ++j;
    while (j < n && s[j] == ' ') ++j;
    return j;
  }
  return 0;
}

}  // namespace

std::string_view clean_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  for (int k = 0; k < 4; ++k) {  // "11: [rank11]:" stacks two prefixes
    std::size_t p = prefix_length(line);
    if (p == 0) break;
    line.remove_prefix(p);
  }
  return line;
}

}  // namespace plumb
