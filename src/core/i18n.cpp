// Language detection, template filling and the interface-word table.
#include "core/i18n.h"

#include <cstdlib>
#include <stdexcept>

#include "core/tables.h"

namespace plumb {

namespace {
using UiMap = std::map<std::string, Text>;

void insert_ui(UiMap& t, std::vector<UiString>&& rows) {
  for (auto& r : rows) {
    if (!t.emplace(r.key, std::move(r.text)).second) throw std::logic_error("duplicate UI string " + r.key);
  }
}

const UiMap& ui_table() {
  static const UiMap t = [] {
    UiMap out;
    insert_ui(out, std::vector<UiString>(tables().ui));
    return out;
  }();
  return t;
}
}  // namespace

bool parse_lang(std::string_view s, Lang& out) {
  if (s == "en" || s.rfind("en_", 0) == 0 || s.rfind("en-", 0) == 0 || s == "C" || s == "POSIX") {
    out = Lang::en;
    return true;
  }
  if (s == "zh" || s.rfind("zh_", 0) == 0 || s.rfind("zh-", 0) == 0) {
    out = Lang::zh;
    return true;
  }
  return false;
}

Lang detect_lang(const std::string& flag) {
  Lang l = Lang::en;
  if (!flag.empty() && parse_lang(flag, l)) return l;
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);  // NOLINT(concurrency-mt-unsafe): read once at start-up
    if (v != nullptr && *v != '\0') {
      return std::string_view(v).rfind("zh", 0) == 0 ? Lang::zh : Lang::en;
    }
  }
  return Lang::en;
}

const char* lang_code(Lang l) { return l == Lang::zh ? "zh-CN" : "en"; }

std::string fill(std::string_view tmpl, const std::map<std::string, std::string>& args) {
  std::string out;
  out.reserve(tmpl.size() + 32);
  std::size_t i = 0;
  while (i < tmpl.size()) {
    char c = tmpl[i];
    if (c == '{') {
      auto close = tmpl.find('}', i + 1);
      if (close != std::string_view::npos) {
        std::string key(tmpl.substr(i + 1, close - i - 1));
        auto it = args.find(key);
        if (it != args.end()) {
          out += it->second;
          i = close + 1;
          continue;
        }
      }
    }
    out += c;
    ++i;
  }
  return out;
}


const std::string& tr(Lang lang, const std::string& key) {
  const auto& t = ui_table();
  auto it = t.find(key);
  if (it == t.end()) return key;
  return it->second.in(lang);
}

const std::map<std::string, Text>& ui_strings() { return ui_table(); }

}  // namespace plumb
