// Streaming splitter: a resumable scanner over the top level of a trace that tracks only string
// state and nesting depth, cuts the traceEvents array at event boundaries and hands batches of
// complete events to the sink. Every buffer is reused, so it stays hot in cache.
#include "analyze/trace/stream.h"

#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace plumb::trace {

namespace {

bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// First '"' or '\\' in [p, end), or end.
const char* find_quote_or_backslash(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i q = _mm_set1_epi8('"');
  const __m128i b = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, b)));
    if (m != 0) return p + __builtin_ctz(static_cast<unsigned>(m));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\') ++p;
  return p;
}

bool wanted_header(std::string_view key) {
  return key == "distributedInfo" || key == "deviceProperties" || key == "baseTimeNanoseconds" ||
         key == "schemaVersion" || key == "displayTimeUnit";
}

class Splitter {
 public:
  Splitter(ByteSource& src, std::string name, TraceSink& sink, const StreamLimits& lim)
      : src_(src), name_(std::move(name)), sink_(sink), lim_(lim) {
    cap_ = std::max<std::size_t>(lim_.chunk * 2, 4096);
    buf_.resize(cap_ + 2 + kBatchPadding);
  }

  Result<StreamStats> run() {
    while (true) {
      auto r = step();
      if (!r) return r.error();
      if (state_ == St::done) break;
      if (!*r) {  // needs more data
        auto f = fill();
        if (!f) return f.error();
        if (!*f) {
          if (state_ == St::after_root) break;
          if (base_ + len_ == 0) return make_error(ErrorKind::invalid, name_ + ": empty file");
          return truncated();
        }
      }
    }
    stats_.bytes = base_ + len_;
    return stats_;
  }

 private:
  enum class St {
    start, obj_key_or_end, obj_key, obj_key_read, obj_colon, obj_value, obj_value_scan, obj_comma_or_end,
    arr_first, arr_elem, event_scan, arr_comma_or_end, after_root, done
  };

  [[nodiscard]] std::uint64_t offset_of(std::size_t idx) const { return base_ + idx - 1; }
  Error err(const std::string& what, std::size_t idx) const {
    return make_error(ErrorKind::invalid, name_ + ": " + what + " at byte " + std::to_string(offset_of(idx)));
  }
  Error truncated() const {
    std::string where = in_events_ ? "inside traceEvents after " + std::to_string(events_) + " events"
                                   : "before the end of the JSON document";
    return make_error(ErrorKind::invalid, name_ + ": truncated: the file ends " + where + " at byte " +
                                              std::to_string(base_ + len_));
  }

  // Reads more input; false at the end of the source.
  Result<bool> fill() {
    std::size_t keep = pos_;
    if (state_ == St::event_scan) keep = ev_start_;
    if (state_ == St::obj_key_read) keep = key_start_;
    auto fb = flush();
    if (!fb) return fb.error();
    // Move the unfinished token to the front (index 1; index 0 stays free for the batch's '[').
    std::size_t live = 1 + len_ - keep;
    if (keep > 1) {
      std::memmove(buf_.data() + 1, buf_.data() + keep, live);
      base_ += keep - 1;
      pos_ -= keep - 1;
      if (state_ == St::event_scan) ev_start_ -= keep - 1;
      if (state_ == St::obj_key_read) key_start_ -= keep - 1;
      len_ = live;
    }
    if (cap_ - len_ < lim_.chunk) {
      if (len_ > lim_.max_event) {
        return err(in_events_ ? "event larger than " + std::to_string(lim_.max_event >> 20) + " MiB"
                              : "token larger than " + std::to_string(lim_.max_event >> 20) + " MiB",
                   state_ == St::event_scan ? ev_start_ : 1);
      }
      cap_ = std::max(cap_ * 2, len_ + lim_.chunk);
      buf_.resize(cap_ + 2 + kBatchPadding);
    }
    auto r = src_.read(buf_.data() + 1 + len_, cap_ - len_);
    if (!r) return r.error();
    len_ += *r;
    return *r > 0;
  }

  // Hands the pending batch [batch_begin_, batch_end_) to the sink as "[...]".
  Result<bool> flush() {
    if (batch_begin_ == 0) return true;
    char* b = buf_.data();
    char saved_before = b[batch_begin_ - 1];
    char saved_after = b[batch_end_];
    b[batch_begin_ - 1] = '[';
    b[batch_end_] = ']';
    auto r = sink_.events(b + batch_begin_ - 1, batch_end_ - batch_begin_ + 2, offset_of(batch_begin_), starts_);
    b[batch_begin_ - 1] = saved_before;
    b[batch_end_] = saved_after;
    batch_begin_ = batch_end_ = 0;
    ++stats_.batches;
    if (!r) return r.error();
    return true;
  }

  // Scans a string/object/array/scalar value; true when it is complete (pos_ just after it).
  bool scan_value(const char*& p, const char* end) {
    while (p < end) {
      if (in_str_) {
        if (esc_) {
          esc_ = false;
          ++p;
          continue;
        }
        p = find_quote_or_backslash(p, end);
        if (p == end) break;
        if (*p == '\\') {
          esc_ = true;
          ++p;
          continue;
        }
        in_str_ = false;
        ++p;
        if (depth_ == 0) return true;  // a bare string value
        continue;
      }
      char c = *p;
      if (scalar_) {
        if (c == ',' || c == '}' || c == ']' || is_ws(c)) return true;
        ++p;
        continue;
      }
      ++p;
      switch (c) {
        case '"': in_str_ = true; break;
        case '{':
        case '[': ++depth_; break;
        case '}':
        case ']':
          if (depth_ == 0) {  // "key": } -- no value at all
            --p;
            missing_ = true;
            return true;
          }
          if (--depth_ == 0) return true;
          break;
        default:
          if (depth_ == 0 && !is_ws(c)) {
            scalar_ = true;  // a number, true, false or null
          }
          break;
      }
    }
    return false;
  }

  void start_value() {
    depth_ = 0;
    in_str_ = esc_ = scalar_ = missing_ = false;
  }

  // Advances the state machine; false when the buffer ran out.
  Result<bool> step() {
    char* b = buf_.data();
    const char* end = b + 1 + len_;
    const char* p = b + pos_;
    auto at = [&](const char* q) { return static_cast<std::size_t>(q - b); };
    auto skip_ws = [&]() {
      while (p < end && is_ws(*p)) ++p;
      return p < end;
    };
    while (true) {
      switch (state_) {
        case St::start: {
          if (!skip_ws()) { pos_ = at(p); return false; }
          if (offset_of(at(p)) == 0 && static_cast<unsigned char>(*p) == 0xEF) {  // UTF-8 BOM
            if (end - p < 3) { pos_ = at(p); return false; }
            p += 3;
            continue;
          }
          if (*p == '{') {
            ++p;
            state_ = St::obj_key_or_end;
          } else if (*p == '[') {
            ++p;
            stats_.legacy_array = true;
            in_events_ = true;
            state_ = St::arr_first;
          } else {
            return err("not a profiler trace: expected a JSON object or array", at(p));
          }
          break;
        }
        case St::obj_key_or_end:
        case St::obj_key: {
          if (!skip_ws()) { pos_ = at(p); return false; }
          if (*p == '}' && state_ == St::obj_key_or_end) {
            ++p;
            state_ = St::after_root;
            break;
          }
          if (*p != '"') return err("expected a key in the top-level object", at(p));
          key_start_ = at(p);
          ++p;
          state_ = St::obj_key_read;
          break;
        }
        case St::obj_key_read: {
          const char* q = b + key_start_ + 1;
          while (true) {
            q = find_quote_or_backslash(q, end);
            if (q == end) break;
            if (*q == '\\') {
              q += 2;
              if (q > end) { q = end; break; }
              continue;
            }
            break;
          }
          if (q >= end) { pos_ = at(p); return false; }
          key_.assign(static_cast<const char*>(b + key_start_ + 1), q);
          p = q + 1;
          state_ = St::obj_colon;
          break;
        }
        case St::obj_colon: {
          if (!skip_ws()) { pos_ = at(p); return false; }
          if (*p != ':') return err("expected ':' after key \"" + key_ + "\"", at(p));
          ++p;
          state_ = St::obj_value;
          break;
        }
        case St::obj_value: {
          if (!skip_ws()) { pos_ = at(p); return false; }
          if (key_ == "traceEvents") {
            if (*p != '[') return err("traceEvents is not an array", at(p));
            if (saw_events_) return err("a second traceEvents array", at(p));
            saw_events_ = in_events_ = true;
            ++p;
            state_ = St::arr_first;
            break;
          }
          start_value();
          capture_ = wanted_header(key_);
          captured_.clear();
          state_ = St::obj_value_scan;
          break;
        }
        case St::obj_value_scan: {
          const char* from = p;
          bool complete = scan_value(p, end);
          if (capture_) {
            if (captured_.size() + (p - from) > lim_.max_header_value) {
              capture_ = false;
              captured_.clear();
            } else {
              captured_.append(from, p);
            }
          }
          if (!complete) { pos_ = at(p); return false; }
          if (missing_) return err("missing value for key \"" + key_ + "\"", at(p));
          if (capture_) {
            auto h = sink_.header(key_, captured_);
            if (!h) return h.error();
          }
          state_ = St::obj_comma_or_end;
          break;
        }
        case St::obj_comma_or_end: {
          if (!skip_ws()) { pos_ = at(p); return false; }
          if (*p == ',') {
            ++p;
            state_ = St::obj_key;
          } else if (*p == '}') {
            ++p;
            state_ = St::after_root;
          } else {
            return err("expected ',' or '}' in the top-level object", at(p));
          }
          break;
        }
        case St::arr_first:
        case St::arr_elem: {
          if (!skip_ws()) { pos_ = at(p); return false; }
          if (*p == ']' && state_ == St::arr_first) {
            ++p;
            end_events();
            break;
          }
          if (*p != '{') return err("event is not a JSON object", at(p));
          ev_start_ = at(p);
          start_value();
          state_ = St::event_scan;
          break;
        }
        case St::event_scan: {
          if (!scan_value(p, end)) { pos_ = at(p); return false; }
          if (batch_begin_ == 0) {
            batch_begin_ = ev_start_;
            starts_.clear();
          }
          starts_.push_back(static_cast<std::uint32_t>(ev_start_ - batch_begin_ + 1));
          batch_end_ = at(p);
          ++events_;
          state_ = St::arr_comma_or_end;
          if (batch_end_ - batch_begin_ >= lim_.batch) {
            pos_ = at(p);
            auto f = flush();
            if (!f) return f.error();
          }
          break;
        }
        case St::arr_comma_or_end: {
          if (!skip_ws()) { pos_ = at(p); return false; }
          if (*p == ',') {
            ++p;
            state_ = St::arr_elem;
          } else if (*p == ']') {
            pos_ = at(p);
            auto f = flush();
            if (!f) return f.error();
            ++p;
            end_events();
          } else {
            return err("expected ',' or ']' between events", at(p));
          }
          break;
        }
        case St::after_root: {
          if (!skip_ws()) { pos_ = at(p); return false; }
          if (*p == '\0') {  // some writers pad files with NUL bytes
            ++p;
            continue;
          }
          return err("unexpected data after the end of the JSON document", at(p));
        }
        case St::done: return true;
      }
    }
  }

  void end_events() {
    in_events_ = false;
    state_ = stats_.legacy_array ? St::after_root : St::obj_comma_or_end;
  }

  ByteSource& src_;
  std::string name_;
  TraceSink& sink_;
  StreamLimits lim_;
  std::vector<char> buf_;
  std::size_t cap_ = 0;    // data capacity (excluding the front byte and the padding)
  std::size_t len_ = 0;    // data bytes in buf_[1, 1+len_)
  std::size_t pos_ = 1;    // scan position
  std::uint64_t base_ = 0; // file offset of buf_[1]
  St state_ = St::start;
  std::string key_;
  std::size_t key_start_ = 0;
  bool capture_ = false;
  std::string captured_;
  int depth_ = 0;
  bool in_str_ = false, esc_ = false, scalar_ = false, missing_ = false;
  std::size_t ev_start_ = 0;
  std::size_t batch_begin_ = 0, batch_end_ = 0;
  std::vector<std::uint32_t> starts_;
  bool in_events_ = false, saw_events_ = false;
  std::uint64_t events_ = 0;
  StreamStats stats_;
};

}  // namespace

Result<StreamStats> stream_trace(ByteSource& src, const std::string& name, TraceSink& sink, const StreamLimits& limits) {
  Splitter s(src, name, sink, limits);
  return s.run();
}

}  // namespace plumb::trace
