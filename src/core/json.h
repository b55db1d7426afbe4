// The full JSON library with the conversions shared by all Facts areas: std::optional and Fact<T>.
// Include it where JSON is built or read; Facts headers need only core/json_fwd.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/fact.h"
#include "core/json_fwd.h"
#include "core/result.h"

namespace plumb::json_detail {

// A number read from a snapshot is one its field can hold: the JSON library would turn 1e30 into
// a byte count of 0 and -1 into 16 EiB without a word. Integral fields take integers (or an
// integral float) in their range; floating fields take finite numbers. The error is the JSON
// library's own out_of_range, so every reader that catches the library's errors catches it.
template <class T>
T checked_get(const nlohmann::json& j) {
  if constexpr (std::is_same_v<T, bool> || !std::is_arithmetic_v<T>) {
    return j.get<T>();
  } else {
    if (!j.is_number()) return j.get<T>();  // the library's own type error
    if constexpr (std::is_floating_point_v<T>) {
      const double d = j.get<double>();
      if (!std::isfinite(d)) throw nlohmann::json::out_of_range::create(406, "a number that is not finite", &j);
      return static_cast<T>(d);
    } else {
      const std::string what = "a number out of range for its field: " + j.dump();
      if (j.is_number_unsigned()) {
        const auto u = j.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) throw nlohmann::json::out_of_range::create(406, what, &j);
        return static_cast<T>(u);
      }
      if (j.is_number_integer()) {
        const auto i = j.get<std::int64_t>();
        if constexpr (std::is_unsigned_v<T>) {
          if (i < 0) throw nlohmann::json::out_of_range::create(406, what, &j);
          if (static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
            throw nlohmann::json::out_of_range::create(406, what, &j);
          }
        } else {
          if (i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
              i > static_cast<std::int64_t>(std::numeric_limits<T>::max())) {
            throw nlohmann::json::out_of_range::create(406, what, &j);
          }
        }
        return static_cast<T>(i);
      }
      const double d = j.get<double>();
      // 2^63 and 2^64 are exact doubles: a value at or past them does not fit.
      const double hi = std::is_unsigned_v<T> && sizeof(T) == 8 ? 18446744073709551616.0
                                                                 : static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
      const double lo = static_cast<double>(std::numeric_limits<T>::min());
      if (!std::isfinite(d) || d != std::floor(d) || d < lo || d >= hi) throw nlohmann::json::out_of_range::create(406, what, &j);
      return static_cast<T>(d);
    }
  }
}

}  // namespace plumb::json_detail

namespace nlohmann {

template <class T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& o) {
    if (o) j = *o; else j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& o) {
    if (j.is_null()) o.reset(); else o = plumb::json_detail::checked_get<T>(j);
  }
};

// {"value": v, "source": s} | {"missing": why, "source": s} | null (not collected)
template <class T>
struct adl_serializer<plumb::Fact<T>> {
  static void to_json(json& j, const plumb::Fact<T>& f) {
    if (!f.value && f.missing.empty() && f.source.empty()) {
      j = nullptr;
      return;
    }
    j = json::object();
    if (f.value) j["value"] = *f.value; else j["missing"] = f.missing;
    if (!f.source.empty()) j["source"] = f.source;
  }
  static void from_json(const json& j, plumb::Fact<T>& f) {
    f = plumb::Fact<T>{};
    if (j.is_null()) return;
    if (j.contains("value")) f.value = plumb::json_detail::checked_get<T>(j.at("value"));
    if (j.contains("missing")) f.missing = j.at("missing").get<std::string>();
    if (j.contains("source")) f.source = j.at("source").get<std::string>();
  }
};

}  // namespace nlohmann

namespace plumb {

// A JSON text that never throws: values read from the machine (environ, sysfs) may hold invalid
// UTF-8, printed as U+FFFD. `indent` -1: one line.
inline std::string dump_text(const json& j, int indent = -1) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

// The deepest nesting of arrays and objects plumb accepts in JSON from outside (a file, a
// process's output, a server's answer). The JSON library parses any depth without recursion, but
// prints, copies and compares a value recursively: a few megabytes of '[' would overflow the stack
// there. plumb's own documents nest a dozen levels.
inline constexpr int kMaxOutsideJsonDepth = 256;

// Whether the arrays and objects of `text` nest deeper than `limit` (brackets inside strings do
// not count); one pass, stopping at the first bracket past the limit.
bool json_nests_deeper_than(std::string_view text, int limit);

// The JSON value of a text from outside plumb, or why there is none: "not valid JSON", or "nested
// deeper than 256 levels" (checked before parsing).
Result<json> parse_outside_json(std::string_view text);

}  // namespace plumb
