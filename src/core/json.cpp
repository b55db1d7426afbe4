// JSON from outside plumb: the nesting checked before the library parses it (core/json.h).
#include "core/json.h"

#include <string>

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

}  // namespace plumb
