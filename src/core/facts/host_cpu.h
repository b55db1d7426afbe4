// Host facts: CPU model, logical/physical cores, NUMA nodes, frequency governor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

// One NUMA node of /sys/devices/system/node: its id and the CPUs it holds ("0-31,64-95").
struct NumaNode {
  int id = 0;
  std::string cpulist;
  int cpus = 0;
  bool operator==(const NumaNode&) const = default;
};
PLUMB_JSON(NumaNode, id, cpulist, cpus)

// The cpufreq governor of one logical CPU (cpuN/cpufreq/scaling_governor).
struct CpuGovernor {
  int cpu = 0;
  std::string governor;  // performance | powersave | schedutil | ondemand | ...
  bool operator==(const CpuGovernor&) const = default;
};
PLUMB_JSON(CpuGovernor, cpu, governor)

struct CpuFacts {
  bool collected = false;  // set by the collector
  // Contract used by other rules and benchmarks: logical CPUs online on the host.
  Fact<int> logical_cpus;
  Fact<std::string> model;         // /proc/cpuinfo "model name" (or "Processor"/"cpu model" on other arches)
  Fact<int> physical_cores;        // distinct (physical id, core id) pairs
  Fact<int> sockets;               // distinct physical ids
  Fact<std::vector<NumaNode>> numa_nodes;   // missing on kernels without NUMA support in sysfs
  Fact<std::vector<CpuGovernor>> governors; // missing when cpufreq is absent (common in VMs)
  Fact<std::string> scaling_driver;         // intel_pstate, acpi-cpufreq, amd-pstate, ...
  Fact<int> numa_balancing;                 // sysctl kernel.numa_balancing: 0 off, 1 on, 2 tiering
  bool operator==(const CpuFacts&) const = default;
};
PLUMB_JSON(CpuFacts, collected, logical_cpus, model, physical_cores, sockets, numa_nodes, governors, scaling_driver,
           numa_balancing)

}  // namespace plumb
