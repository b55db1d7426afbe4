// Run metadata: who ran what, where, when, and how each collector fared.
#pragma once

#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

struct CollectorRun {
  std::string id;
  std::string status;  // ok | error | timed out | skipped
  double duration_ms = 0;
  std::string error;
  bool operator==(const CollectorRun&) const = default;
};
PLUMB_JSON(CollectorRun, id, status, duration_ms, error)

struct RunMeta {
  std::string tool_version;
  std::string command;     // check | report | trace | ...
  std::string started_at;  // ISO 8601 UTC
  std::string hostname;
  std::string root = "/";
  int target_pid = 0;      // 0: plumb itself
  double duration_ms = 0;
  std::vector<CollectorRun> collectors;
  bool operator==(const RunMeta&) const = default;
};
PLUMB_JSON(RunMeta, tool_version, command, started_at, hostname, root, target_pid, duration_ms, collectors)

}  // namespace plumb
