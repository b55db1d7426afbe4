// Differences between two snapshots (`plumb diff A.json B.json`): the facts that matter for
// reproducibility and speed, grouped and ordered (OS, driver, GPU, topology, frameworks, libraries,
// numerics, CPU, memory, cgroup, storage, environment, HDF5, benchmarks), identical ones counted.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/facts.h"
#include "core/knowledge/env_vars.h"

namespace plumb {

// Group keys in report order ("os", "driver", ...; UI strings diff.group.<key>, diff.why.<key>).
const std::vector<std::string>& diff_groups();

struct DiffItem {
  std::string group;  // a diff_groups() key
  std::string path;   // "host.os.kernel", "gpu.devices[].name", "env.NCCL_P2P_DISABLE"
  std::string a, b;   // values as text; "n/a (why)" when missing, "(unset)" for absent variables
};

struct SnapshotDiff {
  std::vector<DiffItem> differences;       // group order, then path
  std::map<std::string, int> identical;    // group -> number of identical facts
};

// Compares the facts (not the run metadata, not kernel-log events, traces or watch samples).
// Arrays of objects compare as multisets per field without identity fields (uuid, bus id), so
// "8x NVIDIA H100" on two machines is identical although the UUIDs differ.
SnapshotDiff diff_facts(const Facts& a, const Facts& b);


}  // namespace plumb
