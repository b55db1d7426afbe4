// Sysctls that matter for training hosts: kernel.numa_balancing, vm.swappiness.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/fact.h"
#include "core/host_root.h"

namespace plumb {

// "kernel.numa_balancing" -> "/proc/sys/kernel/numa_balancing".
std::string sysctl_path(std::string_view name);
// An integer sysctl, with the sysctl file as source.
Fact<int> read_sysctl_int(const HostRoot& root, std::string_view name);

}  // namespace plumb
