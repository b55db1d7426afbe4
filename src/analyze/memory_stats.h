// PyTorch CUDA caching-allocator statistics: torch.cuda.memory_stats() (JSON or the printed
// OrderedDict), torch.cuda.memory_summary() tables and "CUDA out of memory" messages, and the
// analysis behind `plumb memory` (OOMs, retries, fragmentation, pressure, advice).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "core/result.h"
#include "core/thresholds.h"

namespace plumb {

// One metric row of the allocator: current, peak, total allocated, total freed.
struct AllocStat {
  std::optional<std::uint64_t> current, peak, allocated, freed;
  [[nodiscard]] bool any() const { return current || peak || allocated || freed; }
};

struct DeviceMemoryStats {
  std::string device = "0";
  std::optional<std::uint64_t> num_ooms, num_alloc_retries;
  AllocStat allocated_bytes, active_bytes, requested_bytes, reserved_bytes, inactive_split_bytes;
  AllocStat allocations, segments, inactive_splits;  // counts
  std::optional<std::uint64_t> oversize_allocations, oversize_segments;
  // The summary table stopped before these sections (authors often trim it).
  bool truncated = false;
};

// "CUDA out of memory. Tried to allocate ..." in any of PyTorch's three message formats.
struct OomMessage {
  std::string device;  // "0" when the message names it
  std::optional<std::uint64_t> tried, capacity, free, allocated_by_torch, reserved_by_torch, reserved_unallocated;
  std::string text;  // the message, cut to one line
};

struct MemoryInput {
  std::string format;  // "memory_stats json" | "memory_stats repr" | "memory_summary text" | "oom messages"
  std::vector<DeviceMemoryStats> devices;
  std::vector<OomMessage> ooms;
};

// JSON of torch.cuda.memory_stats(): a flat object, an object keyed by device, or a list.
Result<MemoryInput> parse_memory_stats_json(std::string_view text);
// Printed OrderedDict([('allocated_bytes.all.current', 123), ...]) of memory_stats().
Result<MemoryInput> parse_memory_stats_repr(std::string_view text);
// Tables of torch.cuda.memory_summary() (old MB/GB and new MiB/GiB units, several devices, trimmed
// tables, log lines around them) and OOM messages found in the same text. Never fails; may be empty.
MemoryInput parse_memory_summary(std::string_view text);
// OOM messages anywhere in a text.
std::vector<OomMessage> parse_oom_messages(std::string_view text);
// Picks the parser by content; an error when nothing the allocator prints is found.
Result<MemoryInput> parse_memory_file(std::string_view text);

struct MemoryAnalysisOptions {
  std::optional<std::uint64_t> gpu_memory_bytes;  // --gpu-memory, when no OOM message says it
  std::string source;                              // the file, for evidence
};
// Findings l2.vram.* per device (summary, OOMs, retries, fragmentation, pressure).
std::vector<Finding> analyze_memory(const MemoryInput& in, const Thresholds& th, const MemoryAnalysisOptions& o);

}  // namespace plumb
