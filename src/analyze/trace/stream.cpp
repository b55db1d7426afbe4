// Streaming splitter: a resumable scanner over the top level of a trace that tracks only string
// state and nesting depth, cuts the traceEvents array at event boundaries and hands batches of
// complete events to the sink. Every buffer is reused, so it stays hot in cache.
#include "analyze/trace/stream.h"

#include "analyze/trace/scan_simd.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PLUMB_SPLITTER_WIDE 1
#endif

namespace plumb::trace {

namespace {

bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

bool wanted_header(std::string_view key) {
  return key == "distributedInfo" || key == "deviceProperties" || key == "baseTimeNanoseconds" ||
         key == "schemaVersion" || key == "displayTimeUnit";
}

// The splitter's read buffer: grown by copying its live bytes, never zero-filled. A std::vector<char>
// of 512 KiB was written whole before the first read: 130 fresh pages, about a millisecond on a VM,
// for every file and every part of one, whatever its size.
class ReadBuffer {
 public:
  // Room for n bytes, the first `keep` kept.
  void resize(std::size_t n, std::size_t keep) {
    auto q = std::make_unique_for_overwrite<char[]>(n);
    if (keep > 0) std::memcpy(q.get(), p_.get(), keep);
    p_ = std::move(q);
  }
  // The caller's bytes instead (stream_trace_in_place).
  void borrow(char* p) { borrowed_ = p; }
  char* data() { return borrowed_ != nullptr ? borrowed_ : p_.get(); }
  [[nodiscard]] bool borrowed() const { return borrowed_ != nullptr; }

 private:
  std::unique_ptr<char[]> p_;
  char* borrowed_ = nullptr;
};

class Splitter {
 public:
  // With `borrowed` (`len` bytes, stream_trace_in_place) the source is not read and no buffer is
  // allocated: the splitter reads those bytes in place.
  Splitter(ByteSource& src, std::string name, TraceSink& sink, const StreamLimits& lim, const StreamRange& range,
           char* borrowed = nullptr, std::size_t len = 0)
      : src_(src), name_(std::move(name)), sink_(sink), lim_(lim), base_(range.start), stop_at_(range.stop_at), control_(range.control),
        simd_(splitter_simd_level(lim.simd)) {
    if (borrowed != nullptr) {
      buf_.borrow(borrowed - 1);
      cap_ = len_ = len;
    } else {
      cap_ = std::max<std::size_t>(lim_.chunk * 2, 4096);
      buf_.resize(cap_ + 2 + kBatchPadding, 0);
    }
    if (range.in_events) {
      stats_.legacy_array = range.legacy;
      saw_events_ = in_events_ = true;
      state_ = St::events;
      start_events();
    }
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
    events, after_root, done
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
    if (buf_.borrowed()) {  // every byte is there already: the end
      auto fb = flush();
      if (!fb) return fb.error();
      return false;
    }
    std::size_t keep = pos_;
    if (state_ == St::events && depth_ > 0) keep = ev_start_;
    if (state_ == St::obj_key_read) keep = key_start_;
    auto fb = flush();
    if (!fb) return fb.error();
    // Move the unfinished token to the front (index 1; index 0 stays free for the batch's '[').
    std::size_t live = 1 + len_ - keep;
    if (keep > 1) {
      std::memmove(buf_.data() + 1, buf_.data() + keep, live);
      base_ += keep - 1;
      pos_ -= keep - 1;
      if (state_ == St::events && depth_ > 0) ev_start_ -= keep - 1;
      if (state_ == St::obj_key_read) key_start_ -= keep - 1;
      len_ = live;
    }
    if (cap_ - len_ < lim_.chunk) {
      if (len_ > lim_.max_event) {
        return err(in_events_ ? "event larger than " + std::to_string(lim_.max_event >> 20) + " MiB"
                              : "token larger than " + std::to_string(lim_.max_event >> 20) + " MiB",
                   state_ == St::events && depth_ > 0 ? ev_start_ : 1);
      }
      cap_ = std::max(cap_ * 2, len_ + lim_.chunk);
      buf_.resize(cap_ + 2 + kBatchPadding, 1 + len_);
    }
    // Everything up to base_ + len_ is scanned: an offered stop from there on is still ahead.
    if (control_ != nullptr) stop_at_ = control_->answer(base_ + len_, stop_at_, state_ == St::events);
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
    index_.strings_clean = !ctl_in_string_;
    auto r = sink_.events(b + batch_begin_ - 1, batch_end_ - batch_begin_ + 2, offset_of(batch_begin_), index_);
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
      if (scalar_) {
        char c = *p;
        if (c == ',' || c == '}' || c == ']' || is_ws(c)) return true;
        ++p;
        continue;
      }
      if (depth_ > 0) {  // inside a container only strings and brackets matter
        p = find_structural(p, end);
        if (p == end) break;
      }
      char c = *p;
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

  void start_events() {
    depth_ = 0;
    in_str_ = esc_ = false;
  }

  // The events array, 64 bytes at a time (simdjson's idea): bit masks of quotes and brackets, a
  // prefix-XOR for "inside a string", then only the brackets outside strings are visited to track
  // depth and cut events. Blocks holding a backslash take a scalar pass for the quote mask.
  // Returns true at the ']' closing the array (p points at it), false when the data ran out.
  bool scan_events(const char*& p, const char* end) {
#if defined(PLUMB_SPLITTER_WIDE)
    switch (simd_) {
      case 2: return scan_events_avx512(p, end);
      case 1: return scan_events_avx2(p, end);
      default: break;
    }
#endif
    return scan_events_t<0>(p, end);
  }

#if defined(PLUMB_SPLITTER_WIDE)
  // The same loop compiled for wider vectors (flatten: the mask and prefix functions are inlined
  // into it, so the whole loop is built for the target); chosen once per CPU (splitter_simd_level).
  [[gnu::target("avx2,bmi,pclmul"), gnu::flatten]] bool scan_events_avx2(const char*& p, const char* end) {
    return scan_events_t<1>(p, end);
  }
  [[gnu::target("avx512f,avx512bw,avx2,bmi,pclmul"), gnu::flatten]] bool scan_events_avx512(const char*& p,
                                                                                           const char* end) {
    return scan_events_t<2>(p, end);
  }
#endif

  template <int W>
  bool scan_events_t(const char*& p, const char* end) {
    char* b = buf_.data();
    while (p < end) {
      const std::size_t n = std::min<std::size_t>(64, static_cast<std::size_t>(end - p));
      const std::uint64_t valid = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
      std::uint64_t quote = 0, bslash = 0, open = 0, close = 0, ctl = 0;
      masks<W>(p, quote, bslash, open, close, ctl);  // reads 64 bytes: the padding makes this safe
      quote &= valid;
      bslash &= valid;
      open &= valid;
      close &= valid;
      if (bslash != 0 || esc_) quote = scalar_quotes(p, n);
      std::uint64_t in_str = in_string<W>(quote) ^ (in_str_ ? ~std::uint64_t{0} : 0);
      // Invalid JSON, and rare: from here on every batch says so (BatchIndex::strings_clean).
      if ((ctl & in_str & valid) != 0) ctl_in_string_ = true;
      std::uint64_t opens = open & ~in_str;
      std::uint64_t closes = close & ~in_str;
      std::uint64_t bits = opens | closes;
      while (bits != 0) {
        int i = __builtin_ctzll(bits);
        bits &= bits - 1;
        std::size_t idx = static_cast<std::size_t>(p - b) + static_cast<std::size_t>(i);
        if ((opens >> i) & 1U) {
          if (depth_ == 0) {
            if (offset_of(idx) >= stop_at_) {  // the part ends before this event
              p = b + idx;
              stopped_ = true;
              return true;
            }
            ev_start_ = idx;
            ev_value_ends_.clear();
          }
          ++depth_;
          continue;
        }
        if (depth_ == 0) {  // ']' (or a stray '}') at the array's level: the events end here
          if (b[idx] != ']') {
            p = b + idx;
            error_at_ = idx;
            return true;
          }
          p = b + idx;
          in_str_ = false;
          return true;
        }
        if (--depth_ == 1) {
          // The end of a field's value: kept relative to the event, which a refill may move.
          ev_value_ends_.push_back(static_cast<std::uint32_t>(idx - ev_start_));
        } else if (depth_ == 0) {
          if (batch_begin_ == 0) {
            batch_begin_ = ev_start_;
            index_.starts.clear();
            index_.value_ends.clear();
          }
          const auto ev = static_cast<std::uint32_t>(ev_start_ - batch_begin_ + 1);
          index_.starts.push_back(ev);
          for (std::uint32_t r : ev_value_ends_) index_.value_ends.push_back(ev + r);
          batch_end_ = idx + 1;
          ++events_;
          if (batch_end_ - batch_begin_ >= lim_.batch) pending_flush_ = true;
        }
      }
      in_str_ = ((in_str >> (n - 1)) & 1U) != 0;
      p += n;
      if (pending_flush_) {
        pending_flush_ = false;
        auto f = flush();
        if (!f) {
          flush_error_ = f.error();
          return true;
        }
      }
    }
    return false;
  }

  static std::uint64_t prefix_xor(std::uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
  }

#if defined(PLUMB_SPLITTER_WIDE)
  // The prefix XOR as one carry-less multiplication by all ones (simdjson's way).
  [[gnu::target("pclmul,sse2")]] static std::uint64_t prefix_xor_clmul(std::uint64_t x) {
    const __m128i all = _mm_set1_epi8(static_cast<char>(0xff));
    return static_cast<std::uint64_t>(
        _mm_cvtsi128_si64(_mm_clmulepi64_si128(_mm_set_epi64x(0, static_cast<long long>(x)), all, 0)));
  }

  [[gnu::target("avx2")]] static void block_masks_avx2(const char* p, std::uint64_t& quote, std::uint64_t& bslash,
                                                       std::uint64_t& open, std::uint64_t& close,
                                                       std::uint64_t& ctl) {
    const __m256i q = _mm256_set1_epi8('"');
    const __m256i bs = _mm256_set1_epi8('\\');
    const __m256i lo = _mm256_set1_epi8(0x20);
    const __m256i o = _mm256_set1_epi8('{');
    const __m256i c = _mm256_set1_epi8('}');
    const __m256i lim = _mm256_set1_epi8(0x1f);
    for (std::ptrdiff_t k = 0; k < 2; ++k) {
      __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * k));
      __m256i f = _mm256_or_si256(v, lo);
      auto shift = static_cast<unsigned>(32 * k);
      // (a lambda would not inherit this function's target)
      quote |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, q)))} << shift;
      bslash |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, bs)))} << shift;
      open |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(f, o)))} << shift;
      close |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(f, c)))} << shift;
      ctl |= std::uint64_t{static_cast<std::uint32_t>(
                 _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(v, lim), v)))}
             << shift;  // v <= 0x1f
    }
  }

  [[gnu::target("avx512f,avx512bw")]] static void block_masks_avx512(const char* p, std::uint64_t& quote,
                                                                     std::uint64_t& bslash, std::uint64_t& open,
                                                                     std::uint64_t& close, std::uint64_t& ctl) {
    const __m512i v = _mm512_loadu_si512(p);
    const __m512i f = _mm512_or_si512(v, _mm512_set1_epi8(0x20));  // '[' | 0x20 == '{', ']' | 0x20 == '}'
    quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
    bslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
    open = _mm512_cmpeq_epi8_mask(f, _mm512_set1_epi8('{'));
    close = _mm512_cmpeq_epi8_mask(f, _mm512_set1_epi8('}'));
    ctl = _mm512_cmple_epu8_mask(v, _mm512_set1_epi8(0x1f));
  }
#endif

  // The block's masks and its in-string mask at vector width W (see scan_events).
  template <int W>
  static void masks(const char* p, std::uint64_t& quote, std::uint64_t& bslash, std::uint64_t& open,
                    std::uint64_t& close, std::uint64_t& ctl) {
#if defined(PLUMB_SPLITTER_WIDE)
    if constexpr (W == 2) {
      block_masks_avx512(p, quote, bslash, open, close, ctl);
      return;
    } else if constexpr (W == 1) {
      block_masks_avx2(p, quote, bslash, open, close, ctl);
      return;
    }
#endif
    block_masks(p, quote, bslash, open, close, ctl);
  }
  template <int W>
  static std::uint64_t in_string(std::uint64_t quote) {
#if defined(PLUMB_SPLITTER_WIDE)
    if constexpr (W > 0) return prefix_xor_clmul(quote);
#endif
    return prefix_xor(quote);
  }

  // Per 64-byte block: quotes, backslashes, opening and closing brackets, control characters.
  static void block_masks(const char* p, std::uint64_t& quote, std::uint64_t& bslash, std::uint64_t& open,
                          std::uint64_t& close, std::uint64_t& ctl) {
#if defined(__SSE2__)
    const __m128i q = _mm_set1_epi8('"');
    const __m128i bs = _mm_set1_epi8('\\');
    const __m128i lo = _mm_set1_epi8(0x20);
    const __m128i o = _mm_set1_epi8('{');  // '[' | 0x20 == '{'
    const __m128i c = _mm_set1_epi8('}');  // ']' | 0x20 == '}'
    const __m128i lim = _mm_set1_epi8(0x1f);
    for (std::ptrdiff_t k = 0; k < 4; ++k) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
      __m128i f = _mm_or_si128(v, lo);
      auto shift = static_cast<unsigned>(16 * k);
      quote |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, q)))) << shift;
      bslash |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, bs)))) << shift;
      open |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(f, o)))) << shift;
      close |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(f, c)))) << shift;
      ctl |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, lim), v))))
             << shift;  // v <= 0x1f
    }
#else
    for (int i = 0; i < 64; ++i) {
      char ch = p[i];
      std::uint64_t bit = std::uint64_t{1} << i;
      if (ch == '"') quote |= bit;
      if (ch == '\\') bslash |= bit;
      if (ch == '{' || ch == '[') open |= bit;
      if (ch == '}' || ch == ']') close |= bit;
      if (static_cast<unsigned char>(ch) < 0x20) ctl |= bit;
    }
#endif
  }

  // Quote mask of a block with backslashes: an escaped quote is not a quote. Carries esc_.
  std::uint64_t scalar_quotes(const char* p, std::size_t n) {
    std::uint64_t quote = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (esc_) {
        esc_ = false;
        continue;
      }
      if (p[i] == '\\') {
        esc_ = true;
      } else if (p[i] == '"') {
        quote |= std::uint64_t{1} << i;
      }
    }
    return quote;
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
            state_ = St::events;
            start_events();
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
            state_ = St::events;
            start_events();
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
        case St::events: {
          if (!scan_events(p, end)) {
            pos_ = at(p);
            return false;
          }
          if (flush_error_) return *flush_error_;
          if (stopped_) {
            pos_ = at(p);
            auto f = flush();
            if (!f) return f.error();
            stats_.stopped = true;
            stats_.stopped_at = offset_of(pos_);
            state_ = St::done;
            return true;
          }
          if (error_at_ != 0) {
            // The complete events before the stray brace are read first, so the error reported is
            // the first one in the file whatever the sizes of the reads (a refill flushes the batch
            // too, and the brace may sit in the same 64-byte block as the end of the batch).
            auto f = flush();
            if (!f) return f.error();
            return err("unbalanced '}' between events", error_at_);
          }
          // p is at the ']' that closes the events array.
          pos_ = at(p);
          auto f = flush();
          if (!f) return f.error();
          ++p;
          end_events();
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
  ReadBuffer buf_;
  std::size_t cap_ = 0;    // data capacity (excluding the front byte and the padding)
  std::size_t len_ = 0;    // data bytes in buf_[1, 1+len_)
  std::size_t pos_ = 1;    // scan position
  std::uint64_t base_ = 0; // file offset of buf_[1]
  std::uint64_t stop_at_;  // StreamRange::stop_at, or an earlier stop taken from control_
  PartControl* control_;
  int simd_ = 0;           // splitter_simd_level
  bool stopped_ = false;
  St state_ = St::start;
  std::string key_;
  std::size_t key_start_ = 0;
  bool capture_ = false;
  std::string captured_;
  int depth_ = 0;
  bool in_str_ = false, esc_ = false, scalar_ = false, missing_ = false;
  std::size_t ev_start_ = 0;
  std::size_t batch_begin_ = 0, batch_end_ = 0;
  BatchIndex index_;
  std::vector<std::uint32_t> ev_value_ends_;  // of the open event, relative to ev_start_
  bool ctl_in_string_ = false;
  bool pending_flush_ = false;
  std::size_t error_at_ = 0;
  std::optional<Error> flush_error_;
  bool in_events_ = false, saw_events_ = false;
  std::uint64_t events_ = 0;
  StreamStats stats_;
};

}  // namespace

std::uint64_t PartControl::answer(std::uint64_t unscanned, std::uint64_t stop, bool can_stop) {
  progress_.store(unscanned, std::memory_order_relaxed);
  std::uint64_t s = state_.load(std::memory_order_acquire);
  if (!pending(s)) return stop;
  const bool take = can_stop && s >= unscanned && s < stop;
  state_.store(s | (take ? kAccepted : kRefused), std::memory_order_release);
  state_.notify_all();
  return take ? s : stop;
}

void PartControl::finish() {
  done_.store(true);  // seq_cst, as offer()'s reads: an offer made before this is seen below
  std::uint64_t s = state_.load();
  if (pending(s) && state_.compare_exchange_strong(s, s | kRefused)) state_.notify_all();
}

bool PartControl::offer(std::uint64_t cut) {
  if (!pending(cut)) return false;  // not an offset (kNone and the answer bits are not)
  std::uint64_t expected = kNone;
  if (!state_.compare_exchange_strong(expected, cut)) return false;  // another offer is out
  // A reader that has finished may not look again: take the offer back if it is still there.
  if (done_.load()) {
    std::uint64_t mine = cut;
    if (state_.compare_exchange_strong(mine, kNone)) return false;
  }
  std::uint64_t s = cut;
  while ((s = state_.load(std::memory_order_acquire)) == cut) state_.wait(cut, std::memory_order_acquire);
  state_.store(kNone, std::memory_order_release);  // ready for the next offer
  return s == (cut | kAccepted);
}

int splitter_simd_level(int wanted) {
#if defined(PLUMB_SPLITTER_WIDE)
  static const int have = [] {
    __builtin_cpu_init();
    const bool clmul = __builtin_cpu_supports("pclmul") != 0;
    if (clmul && __builtin_cpu_supports("avx512bw") != 0 && __builtin_cpu_supports("avx2") != 0) return 2;
    if (clmul && __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("bmi") != 0) return 1;
    return 0;
  }();
  return std::clamp(wanted, 0, have);
#else
  (void)wanted;
  return 0;
#endif
}

Result<StreamStats> stream_trace(ByteSource& src, const std::string& name, TraceSink& sink, const StreamLimits& limits,
                                 const StreamRange& range) {
  Splitter s(src, name, sink, limits, range);
  return s.run();
}

Result<StreamStats> stream_trace_in_place(char* data, std::size_t len, const std::string& name, TraceSink& sink,
                                          const StreamLimits& limits, const StreamRange& range) {
  auto none = memory_source({}, name);
  Splitter s(*none, name, sink, limits, range, data, len);
  return s.run();
}

}  // namespace plumb::trace
