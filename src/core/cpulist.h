// The kernel's CPU list format, "0-3,8,10-11": cpuset(7) "FORMATS / List format", as written in
// /sys/devices/system/cpu/{online,possible}, /sys/devices/system/node/node*/cpulist,
// cpuset.cpus(.effective) and the Cpus_allowed_list line of /proc/<pid>/status.
#pragma once

#include <string_view>
#include <vector>

#include "core/result.h"

namespace plumb {

// CPU numbers must be below this. Linux builds at most NR_CPUS = 8192 CPUs (x86_64 MAXSMP);
// the bound leaves room for larger builds while keeping a hostile "0-4000000000" from
// allocating without end (at most 64 Ki entries).
inline constexpr int kCpuNumberLimit = 1 << 16;

// Sorted, de-duplicated CPU numbers. Surrounding blanks and a trailing newline are allowed; an
// empty list is valid (a memory-only NUMA node) and gives no CPUs. Errors (kind invalid) name the
// bad item: an empty item, a non-number, a reversed range, a CPU number at or above the limit.
Result<std::vector<int>> parse_cpulist(std::string_view text);

}  // namespace plumb
