// Host facts: the target process: environment variables, resource limits, status.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

// One row of /proc/<pid>/limits. A missing (null) soft/hard value means "unlimited" (RLIM_INFINITY).
struct ResourceLimit {
  std::optional<std::uint64_t> soft;
  std::optional<std::uint64_t> hard;
  std::string unit;  // bytes | files | ... ; empty for unitless rows
  bool operator==(const ResourceLimit&) const = default;
};
PLUMB_JSON(ResourceLimit, soft, hard, unit)

struct ProcessFacts {
  bool collected = false;  // set by the collector
  // Contract used by many rules: the target process's environment (all variables; renderers
  // show only the relevant ones). Missing with the reason when /proc/<pid>/environ is unreadable.
  Fact<std::map<std::string, std::string>> environ;
  Fact<ResourceLimit> memlock;          // "Max locked memory" (bytes)
  Fact<ResourceLimit> nofile;           // "Max open files"
  Fact<std::string> name;               // status Name
  Fact<int> threads;                    // status Threads
  Fact<std::uint64_t> vm_rss_bytes;     // status VmRSS
  Fact<std::string> cpus_allowed_list;  // status Cpus_allowed_list ("0-7"): the affinity mask
  Fact<int> cpus_allowed;               // how many CPUs that list holds
  bool operator==(const ProcessFacts&) const = default;
};
PLUMB_JSON(ProcessFacts, collected, environ, memlock, nofile, name, threads, vm_rss_bytes, cpus_allowed_list,
           cpus_allowed)

}  // namespace plumb
