// The baseline exchange file (`plumb baseline export/import FILE`): a run's metrics and environment
// as JSON, to carry "local baseline vs production" between machines.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts/bench.h"
#include "core/result.h"

namespace plumb {

inline constexpr int kBaselineFileVersion = 1;

struct BaselineFile {
  int version = kBaselineFileVersion;
  std::string exported_at;
  std::string tool_version;
  std::string started_at;   // of the run it came from
  std::string hostname;
  std::string command;
  std::string origin;       // "run 12 of /home/u/.local/state/plumb/plumb.db"
  std::map<std::string, std::string> environment;
  std::vector<BenchMetric> metrics;
};

std::string baseline_file_json(const BaselineFile& f);
// Total on garbage: an error naming the first problem ("not a plumb baseline file", "metric 3 has no name").
Result<BaselineFile> parse_baseline_file(std::string_view text);

}  // namespace plumb
