// Facts of `plumb diff A.json B.json`: the two snapshots compared and the differences between
// their facts that matter for reproducibility and speed, grouped, with the identical ones counted.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/json_fwd.h"

namespace plumb {

struct DiffItem {
  std::string group;  // a diff_groups() key ("os", "driver", ...)
  std::string path;   // "host.os.kernel", "gpu.devices[].name", "env.NCCL_P2P_DISABLE"
  std::string a, b;   // values as text; "n/a (why)" when missing, "(unset)" for absent variables
  bool operator==(const DiffItem&) const = default;
};
PLUMB_JSON(DiffItem, group, path, a, b)

// One side of the comparison: the snapshot file and the run it recorded.
struct DiffSide {
  std::string file;
  std::string hostname;
  std::string started_at;
  std::string tool_version;
  bool operator==(const DiffSide&) const = default;
};
PLUMB_JSON(DiffSide, file, hostname, started_at, tool_version)

struct SnapshotDiff {
  bool collected = false;  // only `plumb diff` fills this area
  DiffSide a, b;
  std::vector<DiffItem> differences;     // group order, then path
  std::map<std::string, int> identical;  // group -> number of identical facts
  bool operator==(const SnapshotDiff&) const = default;
};
PLUMB_JSON(SnapshotDiff, collected, a, b, differences, identical)

}  // namespace plumb
