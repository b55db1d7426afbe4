// JSON from outside plumb: the nesting checked before the library parses it (core/json.h), and the
// one snapshot reader on top of it (core/snapshot.h).
#include "core/json.h"

#include <stdexcept>
#include <string>

#include "core/snapshot.h"

namespace plumb {

bool json_nests_deeper_than(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

Result<json> parse_outside_json(std::string_view text) {
  if (json_nests_deeper_than(text, kMaxOutsideJsonDepth)) {
    return make_error(ErrorKind::invalid, "nested deeper than " + std::to_string(kMaxOutsideJsonDepth) + " levels");
  }
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return make_error(ErrorKind::invalid, "not valid JSON");
  return j;
}

Result<json> read_snapshot(std::string_view text, const std::string& origin) {
  auto parsed = parse_outside_json(text);
  if (!parsed) return make_error(ErrorKind::invalid, origin + ": " + parsed.error().message);
  const json& doc = *parsed;
  const bool bare = doc.is_object() && !doc.contains("facts") && doc.contains("meta");
  if (!doc.is_object() || (!bare && !(doc.contains("facts") && doc.at("facts").is_object()))) {
    return make_error(ErrorKind::invalid, origin + ": not a plumb snapshot (no \"facts\" object)");
  }
  if (doc.contains("schema_version") && doc.at("schema_version") != kSchemaVersion) {
    // A number is named; anything else (a string of any length, an array) by its type.
    const json& v = doc.at("schema_version");
    return make_error(ErrorKind::invalid, origin + ": snapshot schema_version " +
                                              (v.is_number() ? v.dump() : std::string("of type ") + v.type_name()) +
                                              " is not " + std::to_string(kSchemaVersion));
  }
  return parsed;
}

const json& snapshot_facts(const json& doc) { return doc.contains("facts") ? doc.at("facts") : doc; }

Result<Facts> facts_from_snapshot(std::string_view text, const std::string& origin) {
  auto doc = read_snapshot(text, origin);
  if (!doc) return doc.error();
  try {
    return snapshot_facts(*doc).get<Facts>();
  } catch (const std::exception& e) {
    return make_error(ErrorKind::invalid, origin + ": malformed facts (" + e.what() + ")");
  }
}

}  // namespace plumb
