// Languages and user-facing words. Every sentence a user reads comes from a catalogue row with
// an English and a Chinese (zh-CN) text; code never writes prose inline.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace plumb {

enum class Lang { en, zh };

struct Text {
  std::string en;
  std::string zh;
  [[nodiscard]] const std::string& in(Lang l) const { return (l == Lang::zh && !zh.empty()) ? zh : en; }
  [[nodiscard]] bool empty() const { return en.empty() && zh.empty(); }
};

// --lang value, else LC_ALL, LC_MESSAGES, LANG: zh* -> Chinese, anything else English.
Lang detect_lang(const std::string& flag);
bool parse_lang(std::string_view s, Lang& out);
const char* lang_code(Lang l);  // "en" | "zh-CN"

// Replaces {name} with args[name]; unknown placeholders stay as written so a gap is visible.
std::string fill(std::string_view tmpl, const std::map<std::string, std::string>& args);

// Interface words ("Summary", "GPU layer", "not checked") keyed by a dotted id.
struct UiString {
  std::string key;
  Text text;
};
// The word in the language; the key itself when missing (tests catch that).
const std::string& tr(Lang lang, const std::string& key);
const std::map<std::string, Text>& ui_strings();

}  // namespace plumb
