// CPU: model, logical/physical cores, sockets (/proc/cpuinfo, sysfs topology), NUMA nodes, cpufreq governors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts/host.h"
#include "core/host_root.h"

namespace plumb {

// What /proc/cpuinfo tells (proc(5)); the one reader of that file. Counts are missing when the
// architecture does not print the fields (ARM prints no "physical id"/"core id"; some hypervisors
// drop them too). Identity fields come from the first processor record that has them.
struct CpuInfo {
  int processors = 0;                  // "processor" records
  std::optional<std::string> model;    // "model name" (x86), "Processor"/"cpu model"/"cpu" (others), else "Hardware"
  std::optional<int> physical_cores;   // distinct (physical id, core id)
  std::optional<int> sockets;          // distinct physical id
  std::string vendor;                  // "vendor_id" (x86: GenuineIntel, AuthenticAMD)
  std::optional<std::int64_t> family;  // "cpu family" as printed (base + extended family)
  std::optional<std::int64_t> model_number;  // "model" (x86 model number)
};
CpuInfo parse_cpuinfo(std::string_view text);

CpuFacts read_cpu(const HostRoot& root);

}  // namespace plumb
