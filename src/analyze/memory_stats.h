// PyTorch CUDA caching-allocator statistics: torch.cuda.memory_stats() (JSON or the printed
// OrderedDict), torch.cuda.memory_summary() tables and "CUDA out of memory" messages, and the
// per-device view the l2.vram.* rules judge (rules/memory_vram.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts/allocator.h"
#include "core/result.h"

namespace plumb {

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

// One device of a file with what its OOM messages add (a device that only appears in an OOM
// message gets empty statistics marked truncated): the last message, how many there were, and the
// capacity (from the message, else `gpu_memory`) with where it came from.
struct MemoryDeviceView {
  DeviceMemoryStats stats;
  std::optional<OomMessage> last_oom;
  std::uint64_t oom_messages = 0;
  std::optional<std::uint64_t> capacity;
  std::string capacity_source;  // "FILE (OOM message)" | "--gpu-memory"
};
std::vector<MemoryDeviceView> memory_devices(const MemoryInput& in, std::optional<std::uint64_t> gpu_memory);

// Two decimals in GiB ("14.58 GiB" tells 14935 MB from 15552 MB), one in MiB/KiB, else bytes.
std::string memory_bytes_text(std::uint64_t b);

}  // namespace plumb
