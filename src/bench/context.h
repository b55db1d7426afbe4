// The context block of a benchmark: host, CPU governor, load, versions, NUMA layout, GPU clocks
// and throttle reasons, read before and after so a disturbed run can be recognised.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/cgroup.h"
#include "core/context.h"
#include "core/facts/bench.h"

namespace plumb {

BenchContext read_bench_context(const Context& ctx, bool gpu);
// Adds the "after" readings (load, GPU states) to a context read before the run.
BenchContext finish_bench_context(const Context& ctx, BenchContext before, bool gpu);

// Pure parsers of the sources the context reads.
std::optional<double> parse_loadavg(std::string_view text);        // first field of /proc/loadavg

// CPUs of each NUMA node (node directories under /sys/devices/system/node), limited to `allowed`.
// Empty when the machine exposes no NUMA information (then treat it as one node).
std::vector<std::vector<int>> numa_nodes(const HostRoot& root, const std::vector<int>& allowed);
// Size in bytes of the largest CPU cache (the last level), when sysfs tells it.
std::optional<std::uint64_t> last_level_cache_bytes(const HostRoot& root);

}  // namespace plumb
