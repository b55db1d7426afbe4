// cgroup v1 and v2 of the target process: memory limit, OOM events, CPU quota, cpuset; and the
// CPU budget of plumb itself (affinity mask capped by its cgroup CPU quota).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/context.h"
#include "core/facts/host_cgroup.h"
#include "core/result.h"

namespace plumb {

// One line of /proc/<pid>/cgroup: "4:memory:/docker/abc" (v1) or "0::/system.slice/x.scope" (v2).
struct CgroupMembership {
  std::string hierarchy;                 // "0" for the unified hierarchy
  std::vector<std::string> controllers;  // empty for v2; "name=systemd" kept as written
  std::string path;                      // without a " (deleted)" suffix
  bool operator==(const CgroupMembership&) const = default;
};
std::vector<CgroupMembership> parse_proc_cgroup(std::string_view text);

// A limit value: a number of bytes/µs, or none when the file says unlimited.
struct CgroupLimit {
  std::optional<std::uint64_t> value;  // nullopt: unlimited
};
// memory.max ("max" or bytes) and v1 memory.limit_in_bytes (bytes; the page-aligned LONG_MAX
// 9223372036854771712 and anything at or above 2^62 means unlimited).
Result<CgroupLimit> parse_memory_limit(std::string_view text);
// cpu.max "$MAX $PERIOD" ("max 100000" unlimited) -> CPUs (quota / period), nullopt when unlimited.
Result<std::optional<double>> parse_cpu_max(std::string_view text);
// v1 cpu.cfs_quota_us (-1 unlimited) and cpu.cfs_period_us -> CPUs, nullopt when unlimited.
Result<std::optional<double>> parse_cfs_quota(std::string_view quota, std::string_view period);
// Flat "key value" files: memory.events, memory.oom_control, cpu.stat.
std::map<std::string, std::uint64_t> parse_flat_keyed(std::string_view text);

CgroupFacts read_cgroup(const Context& ctx);

// The CPU budget, where every thread count of plumb starts (trace reading, fleet snapshot reading,
// the benchmarks' sweeps). The CPUs plumb may run on (sched_getaffinity; else the online CPUs),
// ascending, never empty:
std::vector<int> affinity_cpus();
// `affinity` CPUs capped by the CPU quota of plumb's cgroup (the cpu_quota_cpus that read_cgroup
// reads through `root`), rounded up; at least 1. Without `affinity`: this process's mask.
int usable_cpus(const HostRoot& root, int affinity);
int usable_cpus(const HostRoot& root);

}  // namespace plumb
