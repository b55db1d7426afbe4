// Writing and reading the baseline exchange file.
#include "store/baseline_file.h"

#include <algorithm>
#include <cmath>

#include "core/json.h"

namespace plumb {

std::string baseline_file_json(const BaselineFile& f) {
  json j;
  j["plumb_baseline"] = f.version;
  j["exported_at"] = f.exported_at;
  j["tool_version"] = f.tool_version;
  j["run"] = {{"started_at", f.started_at}, {"hostname", f.hostname}, {"command", f.command}, {"origin", f.origin}};
  j["environment"] = f.environment;
  j["metrics"] = f.metrics;
  return j.dump(2) + "\n";
}

Result<BaselineFile> parse_baseline_file(std::string_view text) {
  auto parsed = parse_outside_json(text);
  if (!parsed) return make_error(ErrorKind::invalid, parsed.error().message == "not valid JSON" ? "not JSON" : parsed.error().message);
  json& j = *parsed;
  if (!j.is_object() || !j.contains("plumb_baseline")) return make_error(ErrorKind::invalid, "not a plumb baseline file (no \"plumb_baseline\" key)");
  if (!j["plumb_baseline"].is_number_integer()) return make_error(ErrorKind::invalid, "\"plumb_baseline\" must be an integer version");
  BaselineFile f;
  f.version = static_cast<int>(std::clamp<std::int64_t>(j["plumb_baseline"].get<std::int64_t>(), -1, 1000000));
  if (f.version != kBaselineFileVersion) {
    return make_error(ErrorKind::unsupported, "baseline file version " + std::to_string(f.version) + " is not supported (this plumb reads version " +
                                                  std::to_string(kBaselineFileVersion) + ")");
  }
  auto str = [](const json& o, const char* k) {
    return o.is_object() && o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : std::string();
  };
  f.exported_at = str(j, "exported_at");
  f.tool_version = str(j, "tool_version");
  if (j.contains("run")) {
    const json& r = j["run"];
    if (!r.is_object()) return make_error(ErrorKind::invalid, "\"run\" must be an object");
    f.started_at = str(r, "started_at");
    f.hostname = str(r, "hostname");
    f.command = str(r, "command");
    f.origin = str(r, "origin");
  }
  if (j.contains("environment")) {
    const json& e = j["environment"];
    if (!e.is_object()) return make_error(ErrorKind::invalid, "\"environment\" must be an object of strings");
    for (const auto& [k, v] : e.items()) {
      if (v.is_string()) f.environment[k] = v.get<std::string>();
    }
  }
  if (!j.contains("metrics") || !j["metrics"].is_array()) return make_error(ErrorKind::invalid, "\"metrics\" must be an array");
  std::size_t i = 0;
  for (const auto& m : j["metrics"]) {
    ++i;
    if (!m.is_object()) return make_error(ErrorKind::invalid, "metric " + std::to_string(i) + " is not an object");
    BenchMetric bm;
    bm.name = str(m, "name");
    bm.unit = str(m, "unit");
    if (bm.name.empty()) return make_error(ErrorKind::invalid, "metric " + std::to_string(i) + " has no name");
    if (!m.contains("median") || !m["median"].is_number()) return make_error(ErrorKind::invalid, "metric " + bm.name + " has no numeric median");
    auto num = [&](const char* k) {
      double v = m.contains(k) && m[k].is_number() ? m[k].get<double>() : 0.0;
      return std::isfinite(v) ? v : 0.0;
    };
    bm.median = num("median");
    bm.min = num("min");
    bm.max = num("max");
    bm.cv_pct = num("cv_pct");
    bm.samples = static_cast<int>(std::clamp(num("samples"), 0.0, 1e9));
    bm.higher_is_better = !(m.contains("higher_is_better") && m["higher_is_better"].is_boolean() && !m["higher_is_better"].get<bool>());
    if (m.contains("values") && m["values"].is_array()) {
      for (const auto& v : m["values"]) {
        if (v.is_number() && std::isfinite(v.get<double>())) bm.values.push_back(v.get<double>());
      }
    }
    f.metrics.push_back(std::move(bm));
  }
  return f;
}

}  // namespace plumb
