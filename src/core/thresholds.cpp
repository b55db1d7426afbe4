// Threshold registry and the TOML config reader (toml++).
#include "core/thresholds.h"

#include <sstream>
#include <stdexcept>

#include <toml++/toml.h>

#include "core/host_root.h"
#include "core/suggest.h"

namespace plumb {

namespace {
std::map<std::string, ThresholdDef>& defs_table() {
  static std::map<std::string, ThresholdDef> t;
  return t;
}

std::vector<std::string> known_keys() {
  std::vector<std::string> keys;
  for (const auto& [k, d] : defs_table()) keys.push_back(k);
  return keys;
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
      return make_error(ErrorKind::invalid, origin + ": unknown threshold '" + key + "'" +
                                                (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
    std::optional<double> v;
    if (auto d = node.value<double>()) v = *d;
    if (!v) {
      if (auto b = node.value<bool>()) v = *b ? 1.0 : 0.0;
    }
    if (!v) return make_error(ErrorKind::invalid, origin + ": threshold '" + key + "' must be a number");
    out.set(key, *v);
  }
  return true;
}
}  // namespace

bool register_thresholds(std::vector<ThresholdDef> defs) {
  auto& t = defs_table();
  for (auto& d : defs) {
    std::string k = d.key;
    if (!t.emplace(k, std::move(d)).second) throw std::logic_error("duplicate threshold " + k);
  }
  return true;
}

const std::map<std::string, ThresholdDef>& threshold_defs() { return defs_table(); }

Thresholds::Thresholds() {
  for (const auto& [k, d] : defs_table()) values_[k] = d.value;
}

double Thresholds::get(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error("threshold not registered: " + key);
  return it->second;
}

Result<Config> parse_config(const std::string& text, const std::string& origin) {
  Config cfg;
  toml::table doc;
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
      if (t == nullptr) return make_error(ErrorKind::invalid, origin + ": 'thresholds' must be a table");
      auto r = read_thresholds(*t, "", cfg.thresholds, origin);
      if (!r) return r.error();
    } else if (key == "skip") {
      const auto* a = node.as_array();
      if (a == nullptr) return make_error(ErrorKind::invalid, origin + ": 'skip' must be an array of check ids");
      for (const auto& el : *a) {
        auto s = el.value<std::string>();
        if (!s) return make_error(ErrorKind::invalid, origin + ": 'skip' must hold strings");
        cfg.skip.push_back(*s);
      }
    } else {
      std::string hint = closest(key, {"thresholds", "skip"});
      return make_error(ErrorKind::invalid, origin + ": unknown setting '" + key + "'" +
                                                (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
  }
  return cfg;
}

Result<Config> load_config(const std::string& path) {
  auto text = read_user_file(path, 1u << 20);
  if (!text) return make_error(text.error().kind, "cannot read config " + text.error().message);
  return parse_config(*text, path);
}

std::string default_config_toml() {
  std::ostringstream os;
  os << "# plumb thresholds: the embedded defaults. Copy, edit, pass with --config FILE.\n[thresholds]\n";
  for (const auto& [k, d] : defs_table()) {
    os << "# " << d.doc.en;
    if (!d.unit.empty()) os << " (" << d.unit << ")";
    os << "\n\"" << k << "\" = " << d.value << "\n";
  }
  return os.str();
}

}  // namespace plumb
