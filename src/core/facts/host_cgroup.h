// Host facts: cgroup v1/v2 of the target process: memory limit, oom_kill events, CPU quota, cpuset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

struct CgroupFacts {
  bool collected = false;  // set by the collector
  // Contract used by other rules (thread-count rule): CPUs the cgroup actually grants,
  // min(cpu.max quota / period, cpuset size); missing when unlimited and no cpuset.
  Fact<double> effective_cpus;
  // Memory limit of the target's cgroup in bytes; missing ("unlimited") when there is none.
  Fact<std::uint64_t> memory_limit_bytes;

  Fact<int> version;               // 1 (v1 or hybrid with v1 memory/cpu controllers) or 2 (unified)
  Fact<std::string> path;          // the target's cgroup path as /proc/<pid>/cgroup names it
  // memory.max / memory.limit_in_bytes as read ("max", "9223372036854771712", "8589934592"):
  // present while memory_limit_bytes is missing means the cgroup is readable and unlimited.
  Fact<std::string> memory_limit_raw;
  Fact<std::uint64_t> memory_current_bytes;  // memory.current / memory.usage_in_bytes
  Fact<std::uint64_t> oom_events;            // memory.events "oom" (v2 only)
  Fact<std::uint64_t> oom_kill_events;       // memory.events / memory.oom_control "oom_kill"
  Fact<double> cpu_quota_cpus;               // cpu.max or cfs_quota_us / cfs_period_us; missing: unlimited
  Fact<std::string> cpu_quota_raw;           // "max 100000", "200000/100000"
  Fact<std::string> cpuset_cpus;             // cpuset.cpus.effective list as read ("0-15,32-47")
  Fact<int> cpuset_count;                    // CPUs in that list
  bool operator==(const CgroupFacts&) const = default;
};
PLUMB_JSON(CgroupFacts, collected, effective_cpus, memory_limit_bytes, version, path, memory_limit_raw,
           memory_current_bytes, oom_events, oom_kill_events, cpu_quota_cpus, cpu_quota_raw, cpuset_cpus,
           cpuset_count)

}  // namespace plumb
