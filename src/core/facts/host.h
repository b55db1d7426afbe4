// Facts of the host: OS, CPU, memory, cgroups, storage, kernel log, PSI, limits, sysctls, env.
#pragma once

#include <string>

#include "core/facts/host_cgroup.h"
#include "core/facts/host_cpu.h"
#include "core/facts/host_kmsg.h"
#include "core/facts/host_memory.h"
#include "core/facts/host_process.h"
#include "core/facts/host_storage.h"
#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

struct OsFacts {
  Fact<std::string> pretty_name;  // /etc/os-release PRETTY_NAME
  Fact<std::string> id;           // ID (debian, ubuntu, rhel)
  Fact<std::string> version_id;   // VERSION_ID
  Fact<std::string> kernel;       // /proc/sys/kernel/osrelease
  bool operator==(const OsFacts&) const = default;
};
PLUMB_JSON(OsFacts, pretty_name, id, version_id, kernel)

struct HostFacts {
  OsFacts os;
  CpuFacts cpu;
  MemoryFacts memory;
  ProcessFacts process;
  CgroupFacts cgroup;
  StorageFacts storage;
  KernelLogFacts kmsg;
  bool operator==(const HostFacts&) const = default;
};
PLUMB_JSON(HostFacts, os, cpu, memory, process, cgroup, storage, kmsg)

}  // namespace plumb
