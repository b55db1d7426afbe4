// Host facts: CPU model, logical/physical cores, NUMA nodes, frequency governor (owner: host helper B).
#pragma once

#include "core/json.h"

namespace plumb {

struct CpuFacts {
  bool collected = false;  // placeholder until the collector fills it
  bool operator==(const CpuFacts&) const = default;
};
PLUMB_JSON(CpuFacts, collected)

}  // namespace plumb
