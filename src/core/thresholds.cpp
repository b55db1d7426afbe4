// Threshold registry and the TOML config reader (toml++).
#include "core/thresholds.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string_view>
#include <stdexcept>

// toml++ is compiled in from its headers (TOML_HEADER_ONLY, CMakeLists.txt). Its internal
// assertions stay off in every build, as in Debian's shared library (built with NDEBUG): one
// aborts on a key that starts with a control character (toml++ 3.3.0, parser.inl parse_key) in
// builds with assertions, where the parser's next step reports the same input as an error.
#ifndef TOML_ASSERT
#define TOML_ASSERT(expr) static_assert(true)
#endif
#include <toml++/toml.h>

#include "core/host_root.h"
#include "core/lazy_table.h"
#include "core/suggest.h"
#include "core/text.h"

namespace plumb {

namespace {
using DefsMap = std::map<std::string, ThresholdDef>;

void insert_defs(DefsMap& t, std::vector<ThresholdDef>&& defs) {
  for (auto& d : defs) {
    std::string k = d.key;
    if (!t.emplace(k, std::move(d)).second) throw std::logic_error("duplicate threshold " + k);
  }
}

LazyTable<DefsMap, ThresholdDef>& lazy_defs() {
  static LazyTable<DefsMap, ThresholdDef> t(insert_defs);
  return t;
}

DefsMap& defs_table() { return lazy_defs().get(); }

std::vector<std::string> known_keys() {
  std::vector<std::string> keys;
  for (const auto& [k, d] : defs_table()) keys.push_back(k);
  return keys;
}

const char* toml_type_name(const toml::node& n) {
  if (n.is_string()) return "a string";
  if (n.is_boolean()) return "a boolean";
  if (n.is_array()) return "an array";
  if (n.is_table()) return "a table";
  if (n.is_date() || n.is_time() || n.is_date_time()) return "a date/time";
  return "a value of another type";
}

// toml++ parses nested tables, arrays and dotted keys recursively: a few tens of thousands of
// levels ("[a.a.a.a...]") overflow the stack. plumb's config is two levels deep, so anything past
// kMaxDepth is refused before parsing, with the line it starts on.
constexpr int kMaxDepth = 64;
std::optional<std::size_t> too_deep(std::string_view text) {
  int brackets = 0;
  int dots = 0;
  std::size_t line = 1;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      dots = 0;
      quote = 0;  // one-line strings end at the line; a multi-line one only makes the check stricter
      continue;
    }
    if (quote != 0) {
      if (c == '\\' && quote == '"') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    else if (c == '[' || c == '{') ++brackets;
    else if ((c == ']' || c == '}') && brackets > 0) --brackets;
    else if (c == '.') ++dots;
    if (brackets > kMaxDepth || dots > kMaxDepth) return line;
  }
  return std::nullopt;
}

// "FILE:LINE:COLUMN" of a key or value, for one-line errors that point into the file.
std::string position(const std::string& origin, const toml::source_region& r) {
  return origin + ":" + std::to_string(r.begin.line) + ":" + std::to_string(r.begin.column);
}

// Flattens [thresholds] and its sub-tables into dotted keys.
Result<bool> read_thresholds(const toml::table& t, const std::string& prefix, Thresholds& out,
                             const std::string& origin) {
  for (const auto& [k, node] : t) {
    std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const auto* sub = node.as_table()) {
      auto r = read_thresholds(*sub, key, out, origin);
      if (!r) return r;
      continue;
    }
    if (!defs_table().count(key)) {
      std::string hint = closest(key, known_keys());
      return make_error(ErrorKind::invalid, position(origin, k.source()) + ": unknown threshold '" += key + "'" +
                                                (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
    const ThresholdDef& def = defs_table().at(key);
    std::string where = position(origin, node.source());
    const bool flag = def.unit == "0|1";
    std::optional<double> v;
    if (node.is_integer() || node.is_floating_point()) v = node.value<double>();
    if (flag && node.is_boolean()) v = *node.value<bool>() ? 1.0 : 0.0;
    auto expected = [&]() -> std::string {
      if (flag) return "0 or 1 (or true/false)";
      if (def.unit == "%") return "a number from 0 to 100 (%)";
      return "a finite number" + std::string(def.value >= 0 ? " >= 0" : " >= " + fmt_num(def.value, 0)) +
             (def.unit.empty() ? "" : " (" + def.unit + ")");
    };
    if (!v) {
      return make_error(ErrorKind::invalid, std::string(where).append(": threshold '").append(key).append("' must be ").append(expected()).append(", not ") +
                                                std::string(toml_type_name(node)));
    }
    bool ok = std::isfinite(*v);
    if (ok && flag) ok = *v == 0.0 || *v == 1.0;
    if (ok && def.unit == "%") ok = *v >= 0.0 && *v <= 100.0;
    if (ok && !flag && def.unit != "%") ok = *v >= std::min(0.0, def.value);
    if (!ok) {
      return make_error(ErrorKind::invalid, std::string(where).append(": threshold '").append(key).append("' must be ").append(expected()).append(", not ") +
                                                fmt_num(*v, 3));
    }
    out.set(key, *v);
  }
  return true;
}
}  // namespace

bool register_thresholds(std::vector<ThresholdDef> defs) { return lazy_defs().add(std::move(defs)); }
bool register_thresholds(std::vector<ThresholdDef> (*defs)()) { return lazy_defs().defer(defs); }

const std::map<std::string, ThresholdDef>& threshold_defs() { return defs_table(); }

Thresholds::Thresholds() {
  for (const auto& [k, d] : defs_table()) values_[k] = d.value;
}

double Thresholds::get(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error("threshold not registered: " + key);
  return it->second;
}

Result<Config> parse_config(const std::string& text, const std::string& origin, const Config& base) {
  Config cfg = base;
  toml::table doc;
  if (auto line = too_deep(text)) {
    return make_error(ErrorKind::invalid, origin + ":" + std::to_string(*line) + ": nesting deeper than " +
                                              std::to_string(kMaxDepth) + " levels (tables, arrays or dotted keys)");
  }
  try {
    doc = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    return make_error(ErrorKind::invalid, origin + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                                              ": " + std::string(e.description()));
  }
  for (const auto& [k, node] : doc) {
    std::string key(k.str());
    if (key == "thresholds") {
      const auto* t = node.as_table();
      if (t == nullptr) return make_error(ErrorKind::invalid, position(origin, node.source()) + ": 'thresholds' must be a table");
      auto r = read_thresholds(*t, "", cfg.thresholds, origin);
      if (!r) return r.error();
    } else if (key == "skip") {
      const auto* a = node.as_array();
      if (a == nullptr) return make_error(ErrorKind::invalid, position(origin, node.source()) + ": 'skip' must be an array of check ids");
      for (const auto& el : *a) {
        auto s = el.value<std::string>();
        if (!s) return make_error(ErrorKind::invalid, position(origin, el.source()) + ": 'skip' must hold strings");
        cfg.skip.push_back(*s);
      }
    } else {
      std::string hint = closest(key, {"thresholds", "skip"});
      return make_error(ErrorKind::invalid, position(origin, k.source()) + ": unknown setting '" += key + "'" +
                                                (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
  }
  return cfg;
}

Result<Config> load_config(const std::string& path, const Config& base) {
  auto text = read_user_file(path, 1u << 20);
  if (!text) return make_error(text.error().kind, "cannot read config " + text.error().message);
  return parse_config(*text, path, base);
}

std::vector<std::string> default_config_paths() {
  std::vector<std::string> out{"/etc/plumb/plumb.toml"};
  const char* xdg = std::getenv("XDG_CONFIG_HOME");  // NOLINT(concurrency-mt-unsafe)
  const char* home = std::getenv("HOME");            // NOLINT(concurrency-mt-unsafe)
  if (xdg != nullptr && xdg[0] == '/') {
    out.push_back(std::string(xdg) + "/plumb/plumb.toml");
  } else if (home != nullptr && home[0] == '/') {
    out.push_back(std::string(home) + "/.config/plumb/plumb.toml");
  }
  return out;
}

namespace {
// The units of the thresholds' comments in --print-config; symbols (%, MiB, °C) read the same in
// both languages.
std::string unit_in(Lang lang, const std::string& unit) {
  static const std::map<std::string, Text> kUnits = {
      {"count", {"count", "个"}},      {"files", {"files", "个文件"}}, {"months", {"months", "月"}},
      {"ratio", {"ratio", "比值"}},    {"absolute", {"absolute", "绝对值"}}, {"x", {"x", "倍"}},
  };
  auto it = kUnits.find(unit);
  return it == kUnits.end() ? unit : it->second.in(lang);
}
}  // namespace

std::string default_config_toml(Lang lang) {
  static const Text kHead{"# plumb thresholds: the embedded defaults. Copy, edit, pass with --config FILE.\n",
                          "# plumb 阈值：内置默认值。复制、修改后用 --config FILE 传入。\n"};
  std::ostringstream os;
  os << kHead.in(lang) << "[thresholds]\n";
  for (const auto& [k, d] : defs_table()) {
    os << "# " << d.doc.in(lang);
    if (!d.unit.empty()) os << (lang == Lang::zh ? "（" : " (") << unit_in(lang, d.unit) << (lang == Lang::zh ? "）" : ")");
    os << "\n\"" << k << "\" = " << d.value << "\n";
  }
  return os.str();
}

}  // namespace plumb
