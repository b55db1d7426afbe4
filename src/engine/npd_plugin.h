// plumb as a node-problem-detector custom plugin: the plugin contract is an exit code (0 healthy,
// 1 problem, 2 unknown) and one line on stdout that NPD shows as the condition message, cut at
// max_output_length (80 bytes by default). Contract: kubernetes/node-problem-detector,
// docs/custom_plugin_monitor.md and pkg/custompluginmonitor/types.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/i18n.h"

namespace plumb {

inline constexpr std::size_t kNpdMaxLine = 80;  // NPD's default max_output_length
inline constexpr int kNpdOk = 0;
inline constexpr int kNpdProblem = 1;
inline constexpr int kNpdUnknown = 2;

// --layer NAME: gpu | framework | data | distributed | host (the report's Environment section).
// nullopt for an unknown name.
std::optional<Section> parse_npd_layer(const std::string& name);
const char* npd_layer_name(Section s);
const std::vector<std::string>& npd_layer_names();
// The ids of the rules of `plumb check` whose findings belong to that report section.
std::vector<std::string> rule_ids_of_section(Section s);

struct NpdVerdict {
  int exit_code = kNpdUnknown;
  std::string line;  // at most kNpdMaxLine bytes, no newline
};
// Judges the findings of one layer (all layers without one): any failure is a problem; no
// failure and at least one pass, warning or note is healthy; nothing but skips is unknown.
NpdVerdict npd_verdict(const std::vector<Finding>& findings, std::optional<Section> layer, Lang lang);
// The verdict when plumb could not run (bad options, unreadable root).
NpdVerdict npd_unknown(const std::string& reason, Lang lang);

}  // namespace plumb
