// simdjson On-Demand extraction of the fields the analysis needs from each event of a batch.
#include "analyze/trace/event_parse.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>

#include <simdjson.h>


#include "analyze/trace/scan_simd.h"
#include "analyze/trace/stream.h"

namespace plumb::trace {

namespace od = simdjson::ondemand;
static_assert(kBatchPadding >= simdjson::SIMDJSON_PADDING, "batches must carry simdjson's padding");

namespace {

// Compares a raw (still escaped) key with a literal: the key must end right after it.
template <std::size_t N>
bool key_is(const char* raw, const char (&lit)[N]) {
  return std::memcmp(raw, lit, N - 1) == 0 && raw[N - 1] == '"';
}

const char* json_error(simdjson::error_code e) { return simdjson::error_message(e); }

constexpr double kPow10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

// A decimal with up to 18 integer and 9 fraction digits, given as the two digit strings' integer
// values: the one formula both number readers use, so the scanner and the simdjson path give the
// same double.
double decimal_value(bool neg, std::uint64_t ip, bool frac, std::uint64_t fp, std::ptrdiff_t nf) {
  double v = static_cast<double>(ip);
  if (frac) v += static_cast<double>(fp) / kPow10[nf];
  return neg ? -v : v;
}

// Up to eight ASCII digits at once (SWAR): how many of the 8 bytes at p lead with a digit, and
// their value. Microsecond timestamps have 16 digits; a digit a step was a quarter of the number
// reading. Little-endian only (the first byte is the lowest); elsewhere the plain loops run.
constexpr bool kSwar = std::endian::native == std::endian::little;
constexpr std::uint64_t kPow10Int[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
std::uint64_t load8(const char* p) {
  std::uint64_t w = 0;
  std::memcpy(&w, p, 8);
  return w;
}
// The number of leading digits (0..8). XOR with '0' maps a digit to 0..9; a byte that is not one
// then has its high bit set either by itself or once 0x76 is added. A carry out of such a byte
// only reaches bytes after it, which do not count.
int leading_digits(std::uint64_t w) {
  const std::uint64_t x = w ^ 0x3030303030303030ULL;
  const std::uint64_t non = ((x + 0x7676767676767676ULL) | x) & 0x8080808080808080ULL;
  return non == 0 ? 8 : __builtin_ctzll(non) / 8;
}
// The value of the first n (1..8) digits: the others are replaced by leading '0's, then the eight
// are combined in pairs, quadruples and the whole, one multiplication a step.
std::uint64_t digits_value(std::uint64_t w, int n) {
  if (n < 8) {
    const int shift = 8 * (8 - n);
    w = (w << shift) | (0x3030303030303030ULL >> (64 - shift));
  }
  w -= 0x3030303030303030ULL;
  w = (w * 10) + (w >> 8);  // bytes 0, 2, 4, 6: the two-digit numbers
  w = (((w & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
       (((w >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >> 32;
  return static_cast<std::uint32_t>(w);
}

// A number (int or float) as double; false when the value is not a number. Parsed from the raw
// token with std::from_chars: simdjson 3.0.1's get_number() returns 0 for decimals with 19
// significant digits, which Kineto writes ("ts": 1712195495502094.565).
// A number token (trailing white space allowed) as double; false when it is not a number.
bool parse_number_token(std::string_view tok, double& out, bool* fractional = nullptr) {
  if (tok.empty() || !(tok[0] == '-' || (tok[0] >= '0' && tok[0] <= '9'))) return false;
  const char* end = tok.data() + tok.size();
  // Fast path for what Kineto writes ("1712195495502094.565", "35115.869", "7"): up to 18 integer
  // digits and 9 fraction digits, no exponent. The integer part is exact in double below 2^53;
  // beyond that the result stays within an ulp of the correctly rounded value.
  {
    const char* p = tok.data();
    bool neg = *p == '-';
    if (neg) ++p;
    const char* d0 = p;
    std::uint64_t ip = 0;
    while (p < end && *p >= '0' && *p <= '9' && p - d0 < 18) ip = ip * 10 + static_cast<std::uint64_t>(*p++ - '0');
    bool ok = p > d0 && (p == end || (*p != 'e' && *p != 'E' && !(*p >= '0' && *p <= '9')));
    bool frac = false;
    std::uint64_t fp = 0;
    std::ptrdiff_t nf = 0;
    if (ok && p < end && *p == '.') {
      ++p;
      const char* f0 = p;
      while (p < end && *p >= '0' && *p <= '9' && p - f0 < 9) fp = fp * 10 + static_cast<std::uint64_t>(*p++ - '0');
      ok = p > f0 && (p == end || !((*p >= '0' && *p <= '9') || *p == 'e' || *p == 'E'));
      nf = p - f0;
      frac = true;
    }
    if (ok) {
      for (; p < end; ++p) {
        if (*p != ' ' && *p != '\n' && *p != '\r' && *p != '\t') {
          ok = false;
          break;
        }
      }
    }
    if (ok) {
      out = decimal_value(neg, ip, frac, fp, nf);
      if (fractional != nullptr) *fractional = frac;
      return true;
    }
  }
  auto r = std::from_chars(tok.data(), end, out);
  if (r.ec != std::errc() || !std::isfinite(out)) return false;
  for (const char* p = r.ptr; p < end; ++p) {
    if (*p != ' ' && *p != '\n' && *p != '\r' && *p != '\t') return false;
  }
  if (fractional != nullptr) {
    std::string_view num(tok.data(), static_cast<std::size_t>(r.ptr - tok.data()));
    *fractional = num.find_first_of(".eE") != std::string_view::npos;
  }
  return true;
}

bool read_number(od::value& v, double& out, bool* fractional = nullptr) {
  return parse_number_token(v.raw_json_token(), out, fractional);
}

std::int64_t int_or(double d, std::int64_t fallback) {
  if (!(d >= -9.2e18 && d <= 9.2e18)) return fallback;
  return static_cast<std::int64_t>(d);
}

std::int64_t read_int_or(od::value& v, std::int64_t fallback) {
  double d = 0;
  if (!read_number(v, d)) return fallback;
  return int_or(d, fallback);
}

void set_id_string(std::string_view s, TraceId& id) {
  bool digits = !s.empty() && s.size() <= 18;
  std::int64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') {
      digits = false;
      break;
    }
    n = n * 10 + (c - '0');
  }
  if (digits) {
    id.num = n;
  } else {
    id.is_str = true;
    id.str = s;
  }
}

// Whether "args" must be read: GPU activity, runtime calls (correlation) and [memory] instants.
// Unknown yet (args before ph/cat): read it.
bool wants_args(const RawEvent& e, bool seen_ph, bool seen_cat) {
  if (!seen_ph) return true;
  if (e.ph == 'i') return !e.has_name || e.name == "[memory]";
  if (e.ph != 'X') return false;
  if (!seen_cat) return true;
  switch (e.cat) {
    case Cat::kernel:
    case Cat::memcpy:
    case Cat::memset:
    case Cat::cuda_sync:
    case Cat::runtime:
    case Cat::profiler_range:
    case Cat::other: return true;
    default: return false;
  }
}

// pid/tid: numbers, numeric strings ("1890023232" in 2021 traces) or names.
void read_id(od::value& v, TraceId& id) {
  od::json_type t;
  if (v.type().get(t) != simdjson::SUCCESS) return;
  if (t == od::json_type::number) {
    id.num = read_int_or(v, 0);
    return;
  }
  if (t != od::json_type::string) return;
  std::string_view s;
  if (v.get_string().get(s) != simdjson::SUCCESS) return;
  set_id_string(s, id);
}

simdjson::error_code read_args(od::value& v, RawEvent& e) {
  od::object args;
  if (v.get_object().get(args) != simdjson::SUCCESS) return simdjson::SUCCESS;  // non-object args: ignore
  for (auto fr : args) {
    od::field f;
    if (auto er = std::move(fr).get(f)) return er;
    const char* k = f.key().raw();
    od::value val = f.value();
    switch (k[0]) {
      case 's':
        if (key_is(k, "stream")) e.stream = read_int_or(val, -1);
        break;
      case 'c':
        if (key_is(k, "correlation")) e.correlation = read_int_or(val, -1);
        break;
      case 'd':
        if (key_is(k, "device")) e.device = read_int_or(val, -1);
        break;
      case 'b':
        if (key_is(k, "bytes")) {
          double d = 0;
          if (read_number(val, d)) e.bytes = d;
        }
        break;
      case 'D':
        if (key_is(k, "Device Type")) e.mem_device_type = read_int_or(val, -1);
        else if (key_is(k, "Device Id")) e.mem_device_id = read_int_or(val, -1);
        break;
      case 'T':
        if (key_is(k, "Total Allocated")) {
          double d = 0;
          if (read_number(val, d)) e.total_allocated = d;
        } else if (key_is(k, "Total Reserved")) {
          double d = 0;
          if (read_number(val, d)) e.total_reserved = d;
        }
        break;
      default: break;
    }
  }
  return simdjson::SUCCESS;
}

// The fast path: a strict scanner for one event as profilers write it. It reads the same fields as
// read_event, skips everything else while checking that it is valid JSON, and gives up (Scan::slow)
// on anything it does not handle: an escape in a string it must return, invalid JSON, or a field of
// the wrong type. The batch is then parsed by simdjson, whose answers and errors stand.
enum class Scan { ok, slow };

// The ends of the events' container values in a batch (BatchIndex::value_ends), walked in file
// order by one cursor; empty when the batch's strings were not all checked by the splitter.
struct ValueEnds {
  const char* base = nullptr;  // the batch
  const std::uint32_t* next = nullptr;
  const std::uint32_t* last = nullptr;
};

struct Scanner {
  const char* p;
  const char* end;
  ValueEnds* ends = nullptr;
  int depth = 0;

  static bool ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
  // Most calls find a token at once: one comparison rules out every character above the space.
  void skip_ws() {
    while (p < end && static_cast<unsigned char>(*p) <= ' ' && ws(*p)) ++p;
  }
  // Skips the digits at p (ASCII digits, any number of them).
  void skip_digits() {
    if (kSwar) {
      while (end - p >= 8) {
        const int n = leading_digits(load8(p));
        p += n;
        if (n < 8) return;
      }
    }
    while (p < end && *p >= '0' && *p <= '9') ++p;
  }
  // Reads the digits at p into v (v * 10 + digit each; wraps past 19 digits).
  void read_digits(std::uint64_t& v) {
    if (kSwar) {
      while (end - p >= 8) {
        const std::uint64_t w = load8(p);
        const int n = leading_digits(w);
        if (n == 0) return;
        v = v * kPow10Int[n] + digits_value(w, n);
        p += n;
        if (n < 8) return;
      }
    }
    while (p < end && *p >= '0' && *p <= '9') v = v * 10 + static_cast<std::uint64_t>(*p++ - '0');
  }
  // At '"': the string's raw contents; `escaped` when it holds a backslash. False when invalid.
  bool string(std::string_view& out, bool& escaped) {
    const char* b = ++p;
    escaped = false;
    while (true) {
      p = find_string_special(p, end);
      if (p >= end) return false;
      char c = *p;
      if (c == '"') break;
      if (c != '\\') return false;  // a control character: JSON wants it escaped
      escaped = true;
      if (end - p < 2) return false;
      char x = p[1];
      if (x == 'u') {
        if (end - p < 6) return false;
        for (int k = 2; k < 6; ++k) {
          char h = p[k];
          if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) return false;
        }
        p += 6;
      } else if (x == '"' || x == '\\' || x == '/' || x == 'b' || x == 'f' || x == 'n' || x == 'r' || x == 't') {
        p += 2;
      } else {
        return false;
      }
    }
    out = std::string_view(b, static_cast<std::size_t>(p - b));
    ++p;
    return true;
  }
  bool string() {
    std::string_view s;
    bool esc = false;
    return string(s, esc);
  }
  // A JSON number (strict grammar): its token.
  bool number(std::string_view& out) {
    const char* b = p;
    if (p < end && *p == '-') ++p;
    if (p >= end) return false;
    if (*p == '0') {
      ++p;
    } else if (*p >= '1' && *p <= '9') {
      skip_digits();
    } else {
      return false;
    }
    if (p < end && *p == '.') {
      ++p;
      const char* f = p;
      skip_digits();
      if (p == f) return false;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
      ++p;
      if (p < end && (*p == '+' || *p == '-')) ++p;
      const char* x = p;
      while (p < end && *p >= '0' && *p <= '9') ++p;
      if (p == x) return false;
    }
    out = std::string_view(b, static_cast<std::size_t>(p - b));
    return p >= end || ws(*p) || *p == ',' || *p == '}' || *p == ']';
  }
  bool literal(const char* lit, std::size_t n) {
    if (static_cast<std::size_t>(end - p) < n || std::memcmp(p, lit, n) != 0) return false;
    p += n;
    return p >= end || ws(*p) || *p == ',' || *p == '}' || *p == ']';
  }
  // An object or array the analysis does not read: skipped by its brackets, as simdjson On-Demand
  // skips it (strings are still checked for what simdjson's first stage rejects: control characters).
  bool skip_container() {
    int d = 0;
    while (true) {
      p = find_structural(p, end);
      if (p >= end) return false;
      char c = *p;
      if (c == '"') {
        if (!string()) return false;
        continue;
      }
      ++p;
      if (c == '{' || c == '[') {
        ++d;
      } else if (--d == 0) {
        return true;
      }
    }
  }
  // A container that is the value of one of the event's own fields, skipped to the end the splitter
  // found for it: the first one after its opening bracket (those before belong to earlier values).
  bool skip_field_container() {
    const char* at = ends->base;
    while (ends->next < ends->last && at + *ends->next < p) ++ends->next;
    if (ends->next == ends->last) return false;
    const char* close = at + *ends->next++;
    if (close >= end) return false;  // not this event's: refuse the batch
    p = close + 1;
    return true;
  }
  // Any value, skipped: scalars checked strictly, containers by their brackets.
  bool skip_value() {
    if (p >= end) return false;
    switch (*p) {
      case '"': return string();
      case '{':
      case '[':
        if (depth == 1 && ends != nullptr) return skip_field_container();
        return skip_container();
      case 't': return literal("true", 4);
      case 'f': return literal("false", 5);
      case 'n': return literal("null", 4);
      default: {
        std::string_view tok;
        return number(tok);
      }
    }
  }
  // At '{': calls field(raw key) with p at the value, which must consume it.
  template <class F>
  bool object(F&& field) {
    if (++depth > 64) return false;
    ++p;
    skip_ws();
    if (p < end && *p == '}') {
      ++p;
      --depth;
      return true;
    }
    while (true) {
      skip_ws();
      if (p >= end || *p != '"') return false;
      std::string_view key;
      bool esc = false;
      if (!string(key, esc)) return false;
      // The separators as most writers put them (": " and ", ") are taken in one step; any other
      // white space goes through skip_ws.
      if (end - p >= 2 && p[0] == ':' && p[1] == ' ') {
        p += 2;
        if (p < end && static_cast<unsigned char>(*p) <= ' ') skip_ws();
      } else {
        skip_ws();
        if (p >= end || *p != ':') return false;
        ++p;
        skip_ws();
      }
      if (!field(key)) return false;
      if (p < end && static_cast<unsigned char>(*p) <= ' ') skip_ws();
      if (p >= end) return false;
      if (*p == ',') {
        ++p;
        if (p < end && *p == ' ') ++p;
        continue;
      }
      if (*p != '}') return false;
      ++p;
      --depth;
      return true;
    }
  }

  // A string without escapes (the raw bytes are the value).
  bool plain_string(std::string_view& out) {
    if (p >= end || *p != '"') return false;
    bool esc = false;
    return string(out, esc) && !esc;
  }
  // A number read in the same pass that checks its grammar: what Kineto writes (up to 18 integer
  // and 9 fraction digits, no exponent) gives decimal_value, as parse_number_token's fast path
  // does; anything else is handed to parse_number_token.
  bool num(double& out, bool* fractional = nullptr) {
    const char* b = p;
    const bool neg = p < end && *p == '-';
    if (neg) ++p;
    if (p >= end) return false;
    std::uint64_t ip = 0;
    const char* d0 = p;
    if (*p == '0') {
      ++p;
    } else if (*p >= '1' && *p <= '9') {
      read_digits(ip);  // wraps past 19 digits, which take parse_number_token below
    } else {
      return false;
    }
    const std::ptrdiff_t nd = p - d0;
    bool frac = false;
    std::uint64_t fp = 0;
    std::ptrdiff_t nf = 0;
    if (p < end && *p == '.') {
      frac = true;
      const char* f = ++p;
      read_digits(fp);
      nf = p - f;
      if (nf == 0) return false;
    }
    bool expo = false;
    if (p < end && (*p == 'e' || *p == 'E')) {
      expo = true;
      ++p;
      if (p < end && (*p == '+' || *p == '-')) ++p;
      const char* x = p;
      while (p < end && *p >= '0' && *p <= '9') ++p;
      if (p == x) return false;
    }
    if (!(p >= end || ws(*p) || *p == ',' || *p == '}' || *p == ']')) return false;
    if (!expo && nd <= 18 && nf <= 9) {
      out = decimal_value(neg, ip, frac, fp, nf);
      if (fractional != nullptr) *fractional = frac;
      return true;
    }
    return parse_number_token(std::string_view(b, static_cast<std::size_t>(p - b)), out, fractional);
  }
  // An args number read with read_int_or / read_number semantics: any other value gives the default.
  bool arg_int(std::int64_t& out) {
    if (p < end && (*p == '-' || (*p >= '0' && *p <= '9'))) {
      double d = 0;
      if (!num(d)) return false;
      out = int_or(d, -1);
      return true;
    }
    out = -1;
    return skip_value();
  }
  bool arg_num(double& out) {
    if (p < end && (*p == '-' || (*p >= '0' && *p <= '9'))) {
      double d = 0;
      if (!num(d)) return false;
      out = d;
      return true;
    }
    return skip_value();
  }
  bool id(TraceId& out) {
    if (p >= end) return false;
    if (*p == '"') {
      std::string_view s;
      if (!plain_string(s)) return false;
      set_id_string(s, out);
      return true;
    }
    if (*p == '-' || (*p >= '0' && *p <= '9')) {
      double d = 0;
      if (!num(d)) return false;
      out.num = int_or(d, 0);
      return true;
    }
    return skip_value();
  }
};

Scan scan_args(Scanner& sc, RawEvent& e) {
  if (sc.p >= sc.end || *sc.p != '{') return sc.skip_value() ? Scan::ok : Scan::slow;
  bool ok = sc.object([&](std::string_view key) {
    const char* k = key.data();
    switch (k[0]) {
      case 's':
        if (key_is(k, "stream")) return sc.arg_int(e.stream);
        break;
      case 'c':
        if (key_is(k, "correlation")) return sc.arg_int(e.correlation);
        break;
      case 'd':
        if (key_is(k, "device")) return sc.arg_int(e.device);
        break;
      case 'b':
        if (key_is(k, "bytes")) return sc.arg_num(e.bytes);
        break;
      case 'D':
        if (key_is(k, "Device Type")) return sc.arg_int(e.mem_device_type);
        if (key_is(k, "Device Id")) return sc.arg_int(e.mem_device_id);
        break;
      case 'T':
        if (key_is(k, "Total Allocated")) return sc.arg_num(e.total_allocated);
        if (key_is(k, "Total Reserved")) return sc.arg_num(e.total_reserved);
        break;
      default: break;
    }
    return sc.skip_value();
  });
  return ok ? Scan::ok : Scan::slow;
}

// One event [p, end) (end just after its '}'): the fields read_event reads, with its semantics.
Scan scan_event(const char* p, const char* end, ValueEnds* ends, RawEvent& e) {
  Scanner sc{p, end, ends};
  if (sc.p >= sc.end || *sc.p != '{') return Scan::slow;
  bool seen_ph = false, seen_cat = false, stop = false;
  bool ok = sc.object([&](std::string_view key) {
    if (stop) return sc.skip_value();  // read_event has returned: the rest is only checked
    const char* k = key.data();
    switch (k[0]) {
      case 'p':
        if (key_is(k, "ph")) {
          std::string_view s;
          if (!sc.plain_string(s)) return false;
          e.ph = s.empty() ? '?' : s[0];
          seen_ph = true;
          if (e.ph != 'X' && e.ph != 'i') {
            stop = true;
            // Flows, metadata and counters: read_event returns here. simdjson On-Demand then skips
            // the rest of the object: when a ',' follows the value, by its brackets alone
            // (json_iterator::skip_child), to the closing brace the splitter found too. When the
            // splitter has also checked every string of the batch (no control character; UTF-8 is
            // checked for the whole batch), the rest is skipped the same way, in one step. Anything
            // else after the value is left to the strict scan below.
            sc.skip_ws();
            if (ends != nullptr && sc.p < end && *sc.p == ',') sc.p = end - 1;
          }
          return true;
        }
        if (key_is(k, "pid")) return sc.id(e.pid);
        break;
      case 'c':
        if (key_is(k, "cat")) {
          std::string_view s;
          if (!sc.plain_string(s)) return false;
          e.cat = parse_cat(s);
          seen_cat = true;
          return true;
        }
        break;
      case 'n':
        if (key_is(k, "name")) {
          if (!sc.plain_string(e.name)) return false;
          e.has_name = true;
          return true;
        }
        break;
      case 't':
        if (key_is(k, "ts")) {
          if (!sc.num(e.ts, &e.ts_fractional)) return false;
          e.has_ts = true;
          return true;
        }
        if (key_is(k, "tid")) return sc.id(e.tid);
        break;
      case 'd':
        if (key_is(k, "dur")) {
          if (!sc.num(e.dur)) return false;
          e.has_dur = true;
          return true;
        }
        break;
      case 'a':
        if (key_is(k, "args") && wants_args(e, seen_ph, seen_cat)) return scan_args(sc, e) == Scan::ok;
        break;
      default: break;
    }
    return sc.skip_value();
  });
  return ok && sc.p == end ? Scan::ok : Scan::slow;
}

// Fills `e` from one event object. Returns a description of what is wrong, empty when fine.
std::string read_event(od::object& obj, RawEvent& e) {
  bool seen_ph = false, seen_cat = false;
  for (auto fr : obj) {
    od::field f;
    if (auto er = std::move(fr).get(f)) return std::string("invalid JSON (") + json_error(er) + ")";
    const char* k = f.key().raw();
    od::value v = f.value();
    simdjson::error_code er = simdjson::SUCCESS;
    switch (k[0]) {
      case 'p':
        if (key_is(k, "ph")) {
          std::string_view s;
          if (v.get_string().get(s) != simdjson::SUCCESS) return "\"ph\" is not a string";
          e.ph = s.empty() ? '?' : s[0];
          seen_ph = true;
          // Flows, metadata and counters carry nothing the analysis uses: stop reading them here
          // (a quarter of a Kineto trace's events are ac2g flow ends).
          if (e.ph != 'X' && e.ph != 'i') return {};
        } else if (key_is(k, "pid")) {
          read_id(v, e.pid);
        }
        break;
      case 'c':
        if (key_is(k, "cat")) {
          std::string_view s;
          if (v.get_string().get(s) != simdjson::SUCCESS) return "\"cat\" is not a string";
          e.cat = parse_cat(s);
          seen_cat = true;
        }
        break;
      case 'n':
        if (key_is(k, "name")) {
          std::string_view s;
          if (v.get_string().get(s) != simdjson::SUCCESS) return "\"name\" is not a string";
          e.name = s;
          e.has_name = true;
        }
        break;
      case 't':
        if (key_is(k, "ts")) {
          if (!read_number(v, e.ts, &e.ts_fractional)) return "\"ts\" is not a number";
          e.has_ts = true;
        } else if (key_is(k, "tid")) {
          read_id(v, e.tid);
        }
        break;
      case 'd':
        if (key_is(k, "dur")) {
          if (!read_number(v, e.dur)) return "\"dur\" is not a number";
          e.has_dur = true;
        }
        break;
      case 'a':
        if (key_is(k, "args") && wants_args(e, seen_ph, seen_cat)) er = read_args(v, e);
        break;
      default: break;
    }
    if (er != simdjson::SUCCESS) return std::string("invalid JSON (") + json_error(er) + ")";
  }
  return {};
}

}  // namespace

const RawEvent kBlank{};

struct BatchParser::Impl {
  std::string name;
  od::parser parser;
  od::parser single;  // re-parses one event to locate an error
  std::vector<RawEvent> events;  // the fast path's events of one batch
  bool use_fast = true;
  std::atomic<std::uint64_t>* refused = nullptr;

  // The whole batch by the fast scanner, events handed over only once all of them were read;
  // nullopt when any event needs simdjson (then nothing was handed over).
  std::optional<Result<bool>> fast(const char* json, std::size_t len, std::uint64_t offset, const BatchIndex& index,
                                   EventConsumer& out) {
    const auto& starts = index.starts;
    if (starts.empty() || len < 2 || json[0] != '[' || starts[0] != 1) return std::nullopt;
    if (!simdjson::validate_utf8(json, len)) return std::nullopt;
    ValueEnds ends{json, index.value_ends.data(), index.value_ends.data() + index.value_ends.size()};
    ValueEnds* use_ends = index.strings_clean ? &ends : nullptr;
    events.clear();
    const std::size_t n = starts.size();
    for (std::size_t i = 0; i < n; ++i) {
      const char* b = json + starts[i];
      // The event ends at the '}' before the next one's separator: white space, ',', white space.
      const char* q = json + (i + 1 < n ? starts[i + 1] : len - 1) - 1;
      if (i + 1 < n) {
        while (q > b && Scanner::ws(*q)) --q;
        if (*q != ',') return std::nullopt;
        --q;
        while (q > b && Scanner::ws(*q)) --q;
      }
      if (q <= b || *q != '}') return std::nullopt;
      RawEvent& e = events.emplace_back(kBlank);  // a copy: cheaper than value-initialising with rep stos
      e.offset = offset + starts[i] - 1;
      if (scan_event(b, q + 1, use_ends, e) != Scan::ok) return std::nullopt;
    }
    for (const auto& e : events) {
      auto r = out.on_event(e);
      if (!r) return Result<bool>(r.error());
    }
    return Result<bool>(true);
  }

  Error at(std::uint64_t offset, const std::string& what) const {
    return make_error(ErrorKind::invalid, name + ": " + what + " in the event at byte " + std::to_string(offset));
  }

  // After a batch-level JSON error: finds the first event that fails on its own.
  Error locate(const char* json, std::size_t len, std::uint64_t offset, const std::vector<std::uint32_t>& starts,
               simdjson::error_code batch_error) {
    for (std::size_t i = 0; i < starts.size(); ++i) {
      std::size_t b = starts[i];
      std::size_t e = i + 1 < starts.size() ? starts[i + 1] : len - 1;
      while (e > b && json[e - 1] != '}') --e;  // drop the separator
      simdjson::padded_string one(json + b, e - b);
      od::document doc;
      od::object obj;
      auto er = parser_iterate(one, doc);
      if (er == simdjson::SUCCESS) er = doc.get_object().get(obj);
      if (er == simdjson::SUCCESS) {
        RawEvent ev;
        std::string bad = read_event(obj, ev);
        if (!bad.empty()) return at(offset + b - 1, bad);
        continue;
      }
      return at(offset + b - 1, std::string("invalid JSON (") + json_error(er) + ")");
    }
    return make_error(ErrorKind::invalid, name + ": invalid JSON in the events from byte " + std::to_string(offset) +
                                              " (" + json_error(batch_error) + ")");
  }

  simdjson::error_code parser_iterate(simdjson::padded_string& s, od::document& doc) {
    return single.iterate(s).get(doc);
  }
};

BatchParser::BatchParser(std::string name, bool fast, std::atomic<std::uint64_t>* simdjson_batches)
    : impl_(std::make_unique<Impl>()) {
  impl_->name = std::move(name);
  impl_->use_fast = fast;
  impl_->refused = simdjson_batches;
}
BatchParser::~BatchParser() = default;

Result<bool> BatchParser::parse(const char* json, std::size_t len, std::uint64_t offset, const BatchIndex& index,
                                EventConsumer& out) {
  const auto& starts = index.starts;
  if (impl_->use_fast) {
    if (auto r = impl_->fast(json, len, offset, index, out)) return std::move(*r);
    if (impl_->refused != nullptr) impl_->refused->fetch_add(1, std::memory_order_relaxed);
  }
  auto& p = impl_->parser;
  od::document doc;
  if (auto er = p.iterate(json, len, len + kBatchPadding).get(doc)) return impl_->locate(json, len, offset, starts, er);
  od::array arr;
  if (auto er = doc.get_array().get(arr)) return impl_->locate(json, len, offset, starts, er);
  std::size_t i = 0;
  for (auto vr : arr) {
    std::uint64_t ev_offset = offset + (i < starts.size() ? starts[i] - 1 : 0);
    od::object obj;
    if (auto er = vr.get_object().get(obj)) return impl_->locate(json, len, offset, starts, er);
    RawEvent e;
    e.offset = ev_offset;
    std::string bad = read_event(obj, e);
    if (!bad.empty()) {
      if (bad.rfind("invalid JSON", 0) == 0) return impl_->locate(json, len, offset, starts, simdjson::TAPE_ERROR);
      return impl_->at(ev_offset, bad);
    }
    auto r = out.on_event(e);
    if (!r) return r.error();
    ++i;
  }
  return true;
}

}  // namespace plumb::trace
