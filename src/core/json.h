// The full JSON library with the conversions shared by all Facts areas: std::optional and Fact<T>.
// Include it where JSON is built or read; Facts headers need only core/json_fwd.h.
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/fact.h"
#include "core/json_fwd.h"
#include "core/result.h"

namespace nlohmann {

template <class T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& o) {
    if (o) j = *o; else j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& o) {
    if (j.is_null()) o.reset(); else o = j.get<T>();
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
    if (j.contains("value")) f.value = j.at("value").get<T>();
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
