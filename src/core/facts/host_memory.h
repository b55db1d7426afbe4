// Host facts: meminfo, swap, transparent hugepages, PSI, sysctls.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

// One row of /proc/swaps.
struct SwapDevice {
  std::string filename;  // /dev/dm-2, /swap.img
  std::string type;      // partition | file
  std::uint64_t size_bytes = 0;
  std::uint64_t used_bytes = 0;
  int priority = 0;
  bool operator==(const SwapDevice&) const = default;
};
PLUMB_JSON(SwapDevice, filename, type, size_bytes, used_bytes, priority)

// One line of a PSI file: share of wall time (%) some/all tasks stalled, and the total stall in µs.
struct PressureLine {
  double avg10 = 0;
  double avg60 = 0;
  double avg300 = 0;
  std::uint64_t total_us = 0;
  bool operator==(const PressureLine&) const = default;
};
PLUMB_JSON(PressureLine, avg10, avg60, avg300, total_us)

// A /proc/pressure/<resource> file: `some` always; `full` missing on the system cpu file before 5.13.
struct Pressure {
  std::optional<PressureLine> some;
  std::optional<PressureLine> full;
  bool operator==(const Pressure&) const = default;
};
PLUMB_JSON(Pressure, some, full)

struct PressureFacts {
  Fact<Pressure> cpu;     // /proc/pressure/cpu (CONFIG_PSI; absent before 4.20 or with psi=0)
  Fact<Pressure> memory;  // /proc/pressure/memory
  Fact<Pressure> io;      // /proc/pressure/io
  bool operator==(const PressureFacts&) const = default;
};
PLUMB_JSON(PressureFacts, cpu, memory, io)

struct MemoryFacts {
  bool collected = false;  // set by the collector
  // Contract used by other rules (cgroup limit rule): MemTotal of /proc/meminfo in bytes.
  Fact<std::uint64_t> mem_total_bytes;
  // MemAvailable (3.14+); older kernels: MemFree + Buffers + Cached, with the source saying so.
  Fact<std::uint64_t> mem_available_bytes;
  Fact<std::uint64_t> swap_total_bytes;
  Fact<std::uint64_t> swap_free_bytes;
  Fact<std::uint64_t> hugepages_total;      // HugePages_Total (pages, not bytes)
  Fact<std::uint64_t> hugepages_free;       // HugePages_Free
  Fact<std::uint64_t> hugepage_size_bytes;  // Hugepagesize
  Fact<std::uint64_t> anon_hugepages_bytes; // AnonHugePages: memory backed by transparent hugepages
  Fact<std::vector<SwapDevice>> swaps;      // /proc/swaps rows (empty: no swap device)
  Fact<std::string> thp_enabled;            // the bracketed value: always | madvise | never
  Fact<std::string> thp_defrag;             // always | defer | defer+madvise | madvise | never
  Fact<int> swappiness;                     // sysctl vm.swappiness
  PressureFacts pressure;                   // PSI: cpu, memory, io
  bool operator==(const MemoryFacts&) const = default;
};
PLUMB_JSON(MemoryFacts, collected, mem_total_bytes, mem_available_bytes, swap_total_bytes, swap_free_bytes,
           hugepages_total, hugepages_free, hugepage_size_bytes, anon_hugepages_bytes, swaps, thp_enabled, thp_defrag,
           swappiness, pressure)

}  // namespace plumb
