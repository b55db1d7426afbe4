// Host facts: cgroup v1/v2 of the target process: memory limit, oom_kill events, CPU quota, cpuset (owner: host helper A).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json.h"

namespace plumb {

struct CgroupFacts {
  bool collected = false;  // set by the collector
  // Contract used by other rules (thread-count rule): CPUs the cgroup actually grants,
  // min(cpu.max quota / period, cpuset size); missing when unlimited and no cpuset.
  Fact<double> effective_cpus;
  // Memory limit of the target's cgroup in bytes; missing ("unlimited") when there is none.
  Fact<std::uint64_t> memory_limit_bytes;
  bool operator==(const CgroupFacts&) const = default;
};
PLUMB_JSON(CgroupFacts, collected, effective_cpus, memory_limit_bytes)

}  // namespace plumb
