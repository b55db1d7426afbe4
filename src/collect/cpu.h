// CPU: model, logical/physical cores, sockets (/proc/cpuinfo, sysfs topology), NUMA nodes, cpufreq governors.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts/host.h"
#include "core/host_root.h"

namespace plumb {

// What /proc/cpuinfo tells: counts are missing when the architecture does not print the fields
// (ARM prints no "physical id"/"core id"; some hypervisors drop them too).
struct CpuInfo {
  int processors = 0;                  // "processor" records
  std::optional<std::string> model;    // "model name" (x86), "Processor"/"cpu model" (others)
  std::optional<int> physical_cores;   // distinct (physical id, core id)
  std::optional<int> sockets;          // distinct physical id
};
CpuInfo parse_cpuinfo(std::string_view text);

// Kernel CPU list format ("0-3,8,10-11", cpuset(7)) -> sorted CPU numbers; nullopt on garbage.
// Ranges are capped so a hostile "0-4000000000" cannot exhaust memory.
std::optional<std::vector<int>> parse_cpulist(std::string_view text);

CpuFacts read_cpu(const HostRoot& root);

}  // namespace plumb
