// Host facts: meminfo, swap, transparent hugepages, PSI, sysctls (owner: host helper B).
#pragma once

#include "core/json.h"

namespace plumb {

struct MemoryFacts {
  bool collected = false;  // placeholder until the collector fills it
  bool operator==(const MemoryFacts&) const = default;
};
PLUMB_JSON(MemoryFacts, collected)

}  // namespace plumb
