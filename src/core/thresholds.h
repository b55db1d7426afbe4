// Thresholds: named numbers the rules judge against. Each rule file registers its defaults
// (the health-check method's figures); `--config FILE` (TOML, [thresholds] table) overrides them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/i18n.h"
#include "core/result.h"

namespace plumb {

struct ThresholdDef {
  std::string key;    // "gpu.temperature_warn_c"
  double value = 0;   // embedded default
  std::string unit;   // "°C", "%", "MiB", "count"
  Text doc;           // what it bounds
};

const std::map<std::string, ThresholdDef>& threshold_defs();

class Thresholds {
 public:
  Thresholds();  // all embedded defaults
  // Throws std::logic_error for a key no rule registered (a programming error).
  [[nodiscard]] double get(const std::string& key) const;
  void set(const std::string& key, double v) { values_[key] = v; }
  [[nodiscard]] const std::map<std::string, double>& values() const { return values_; }

 private:
  std::map<std::string, double> values_;
};

// Settings read from a TOML config file.
struct Config {
  Thresholds thresholds;
  std::vector<std::string> skip;  // check ids or prefixes to skip, like --skip
};

// Parses TOML text over `base` (what it does not set keeps base's value; skip lists add up).
// Unknown keys are errors with a "did you mean" hint.
Result<Config> parse_config(const std::string& text, const std::string& origin, const Config& base = {});
Result<Config> load_config(const std::string& path, const Config& base = {});
// The configuration files read before --config, in order, later ones overriding earlier ones:
// /etc/plumb/plumb.toml, then $XDG_CONFIG_HOME/plumb/plumb.toml ($HOME/.config when unset).
std::vector<std::string> default_config_paths();
// The defaults as a TOML document (plumb check --print-config), comments in `lang`.
std::string default_config_toml(Lang lang = Lang::en);

}  // namespace plumb
