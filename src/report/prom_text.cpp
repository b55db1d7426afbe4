// Prometheus text exposition writer (format 0.0.4).
#include "report/prom_text.h"

#include <charconv>
#include <cmath>

#include "core/utf8.h"

namespace plumb::prom {

// Prometheus's text parser refuses a label value that is not UTF-8, and with it the whole scrape
// ("invalid label value", promtool check metrics): a host name or a process name read from the
// machine can hold any bytes. Such bytes are shown as U+FFFD.
std::string escape_label_value(std::string_view raw) {
  const std::string v = valid_utf8(raw);
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string escape_help(std::string_view raw) {
  const std::string v = valid_utf8(raw);
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  // Whole numbers (bytes, hertz, timestamps) plainly, not as 1.98e+09.
  if (std::abs(v) < 1e15 && v == std::floor(v)) return std::to_string(static_cast<long long>(v));
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

void Exposition::gauge(const std::string& name, const std::string& help_key, const Labels& labels, double v) {
  add(name, "gauge", help_key, labels, v);
}

void Exposition::counter(const std::string& name, const std::string& help_key, const Labels& labels, double v) {
  add(name, "counter", help_key, labels, v);
}

void Exposition::add(const std::string& name, const char* type, const std::string& help_key, const Labels& labels, double v) {
  auto [it, fresh] = families_.try_emplace(name);
  if (fresh) {
    order_.push_back(name);
    it->second.type = type;
    it->second.help = tr(lang_, help_key);
  }
  std::string& l = it->second.lines;
  l += name;
  if (!labels.empty()) {
    l += '{';
    bool first = true;
    for (const auto& [k, val] : labels) {
      if (!first) l += ',';
      first = false;
      l += k + "=\"" + escape_label_value(val) + "\"";
    }
    l += '}';
  }
  l += ' ' + format_value(v) + '\n';
}

std::string Exposition::str() const {
  std::string out;
  for (const auto& name : order_) {
    const Family& f = families_.at(name);
    out.append("# HELP ").append(name).append(" ").append(escape_help(f.help));
    out.append("\n# TYPE ").append(name).append(" ").append(f.type).append("\n").append(f.lines);
  }
  return out;
}

}  // namespace plumb::prom
