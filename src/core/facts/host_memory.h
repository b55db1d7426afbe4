// Host facts: meminfo, swap, transparent hugepages, PSI, sysctls (owner: host helper B).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json.h"

namespace plumb {

struct MemoryFacts {
  bool collected = false;  // set by the collector
  // Contract used by other rules (cgroup limit rule): MemTotal of /proc/meminfo in bytes.
  Fact<std::uint64_t> mem_total_bytes;
  bool operator==(const MemoryFacts&) const = default;
};
PLUMB_JSON(MemoryFacts, collected, mem_total_bytes)

}  // namespace plumb
