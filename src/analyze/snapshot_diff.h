// Differences between two snapshots (`plumb diff A.json B.json`): the facts that matter for
// reproducibility and speed, grouped and ordered (OS, driver, GPU, topology, frameworks, libraries,
// numerics, CPU, memory, cgroup, storage, environment, HDF5, benchmarks), identical ones counted.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/facts.h"
#include "core/facts/diff.h"
#include "core/knowledge/env_vars.h"

namespace plumb {

// Group keys in report order ("os", "driver", ...; UI strings diff.group.<key>, diff.why.<key>).
const std::vector<std::string>& diff_groups();

// Compares the facts (not the run metadata, not kernel-log events, traces, watch samples or the
// analyses of artefacts: allocator statistics, HDF5 layouts, topology groups, an earlier diff; not
// the moment's state either: pressure, free memory, RSS, temperatures, counters, timestamps and
// durations, which differ between two snapshots of one machine taken seconds apart). Environment
// variables are compared once, as env.NAME, whichever fact holds them.
// Fills differences and identical; the caller names the sides.
// Arrays of objects compare as multisets per field without identity fields (uuid, bus id), so
// "8x NVIDIA H100" on two machines is identical although the UUIDs differ.
SnapshotDiff diff_facts(const Facts& a, const Facts& b);


}  // namespace plumb
