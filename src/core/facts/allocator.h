// Facts of PyTorch's CUDA caching allocator as `plumb memory` reads them from files: the
// statistics of torch.cuda.memory_stats()/memory_summary() per device and the "CUDA out of
// memory" messages, one entry per input file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json_fwd.h"

namespace plumb {

// One metric row of the allocator: current, peak, total allocated, total freed.
struct AllocStat {
  std::optional<std::uint64_t> current, peak, allocated, freed;
  [[nodiscard]] bool any() const { return current || peak || allocated || freed; }
  bool operator==(const AllocStat&) const = default;
};
PLUMB_JSON(AllocStat, current, peak, allocated, freed)

struct DeviceMemoryStats {
  std::string device = "0";
  std::optional<std::uint64_t> num_ooms, num_alloc_retries;
  AllocStat allocated_bytes, active_bytes, requested_bytes, reserved_bytes, inactive_split_bytes;
  AllocStat allocations, segments, inactive_splits;  // counts
  std::optional<std::uint64_t> oversize_allocations, oversize_segments;
  // The summary table stopped before these sections (authors often trim it).
  bool truncated = false;
  bool operator==(const DeviceMemoryStats&) const = default;
};
PLUMB_JSON(DeviceMemoryStats, device, num_ooms, num_alloc_retries, allocated_bytes, active_bytes, requested_bytes,
           reserved_bytes, inactive_split_bytes, allocations, segments, inactive_splits, oversize_allocations,
           oversize_segments, truncated)

// "CUDA out of memory. Tried to allocate ..." in any of PyTorch's three message formats.
struct OomMessage {
  std::string device;  // "0" when the message names it
  std::optional<std::uint64_t> tried, capacity, free, allocated_by_torch, reserved_by_torch, reserved_unallocated;
  std::string text;  // the message, cut to one line
  bool operator==(const OomMessage&) const = default;
};
PLUMB_JSON(OomMessage, device, tried, capacity, free, allocated_by_torch, reserved_by_torch, reserved_unallocated, text)

// What one file said.
struct MemoryInput {
  std::string file;    // where it was read (evidence source); empty for text parsed in memory
  std::string format;  // "memory_stats json" | "memory_stats repr" | "memory_summary text" | "oom messages"
  std::vector<DeviceMemoryStats> devices;
  std::vector<OomMessage> ooms;
  bool operator==(const MemoryInput&) const = default;
};
PLUMB_JSON(MemoryInput, file, format, devices, ooms)

struct AllocatorFacts {
  bool collected = false;  // only `plumb memory` fills this area
  std::vector<MemoryInput> files;
  // The GPU's capacity given on the command line (--gpu-memory), for files whose OOM messages do not state it.
  std::optional<std::uint64_t> gpu_memory_bytes;
  bool operator==(const AllocatorFacts&) const = default;
};
PLUMB_JSON(AllocatorFacts, collected, files, gpu_memory_bytes)

}  // namespace plumb
