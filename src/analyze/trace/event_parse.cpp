// simdjson On-Demand extraction of the fields the analysis needs from each event of a batch.
#include "analyze/trace/event_parse.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include <simdjson.h>

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

// A number (int or float) as double; false when the value is not a number. Parsed from the raw
// token with std::from_chars: simdjson 3.0.1's get_number() returns 0 for decimals with 19
// significant digits, which Kineto writes ("ts": 1712195495502094.565).
bool read_number(od::value& v, double& out, bool* fractional = nullptr) {
  std::string_view tok = v.raw_json_token();
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
    double v = static_cast<double>(ip);
    bool frac = false;
    if (ok && p < end && *p == '.') {
      ++p;
      const char* f0 = p;
      std::uint64_t fp = 0;
      while (p < end && *p >= '0' && *p <= '9' && p - f0 < 9) fp = fp * 10 + static_cast<std::uint64_t>(*p++ - '0');
      static constexpr double kPow10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
      ok = p > f0 && (p == end || !((*p >= '0' && *p <= '9') || *p == 'e' || *p == 'E'));
      v += static_cast<double>(fp) / kPow10[p - f0];
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
      out = neg ? -v : v;
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

std::int64_t read_int_or(od::value& v, std::int64_t fallback) {
  double d = 0;
  if (!read_number(v, d)) return fallback;
  if (!(d >= -9.2e18 && d <= 9.2e18)) return fallback;
  return static_cast<std::int64_t>(d);
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

struct BatchParser::Impl {
  std::string name;
  od::parser parser;
  od::parser single;  // re-parses one event to locate an error

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

BatchParser::BatchParser(std::string name) : impl_(std::make_unique<Impl>()) { impl_->name = std::move(name); }
BatchParser::~BatchParser() = default;

Result<bool> BatchParser::parse(const char* json, std::size_t len, std::uint64_t offset,
                                const std::vector<std::uint32_t>& starts, EventConsumer& out) {
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
