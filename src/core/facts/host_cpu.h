// Host facts: CPU model, logical/physical cores, NUMA nodes, frequency governor (owner: host helper B).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json.h"

namespace plumb {

struct CpuFacts {
  bool collected = false;  // set by the collector
  // Contract used by other rules and benchmarks: logical CPUs online on the host.
  Fact<int> logical_cpus;
  bool operator==(const CpuFacts&) const = default;
};
PLUMB_JSON(CpuFacts, collected, logical_cpus)

}  // namespace plumb
