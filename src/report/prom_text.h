// Prometheus text exposition format 0.0.4: metric families (HELP, TYPE, samples grouped per
// family, as the format requires), label escaping and value formatting.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/i18n.h"

namespace plumb::prom {

using Labels = std::vector<std::pair<std::string, std::string>>;

// Label values escape backslash, double quote and newline; HELP escapes backslash and newline.
// In both, a byte that is not part of valid UTF-8 becomes U+FFFD.
std::string escape_label_value(std::string_view v);
std::string escape_help(std::string_view v);
// Shortest round-trip decimal; NaN, +Inf, -Inf as the format spells them.
std::string format_value(double v);

class Exposition {
 public:
  explicit Exposition(Lang lang = Lang::en) : lang_(lang) {}
  // help_key: a UI-string key ("prom.help.<name>") whose text becomes the HELP line.
  void gauge(const std::string& name, const std::string& help_key, const Labels& labels, double v);
  void counter(const std::string& name, const std::string& help_key, const Labels& labels, double v);
  [[nodiscard]] std::string str() const;
  [[nodiscard]] bool empty() const { return order_.empty(); }

 private:
  void add(const std::string& name, const char* type, const std::string& help_key, const Labels& labels, double v);
  struct Family {
    std::string type, help;
    std::string lines;
  };
  Lang lang_;
  std::vector<std::string> order_;
  std::map<std::string, Family> families_;
};

}  // namespace plumb::prom
