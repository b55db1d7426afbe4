// Memory: /proc/meminfo, /proc/swaps, transparent hugepage settings.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts/host.h"
#include "core/host_root.h"

namespace plumb {

// /proc/meminfo "Key:   123 kB" -> bytes (kB is KiB); unit-less rows (HugePages_*) stay counts.
std::map<std::string, std::uint64_t> parse_meminfo(std::string_view text);
// MemAvailable from parsed meminfo; kernels before 3.14 have none, then MemFree + Buffers + Cached
// (the classic estimate). nullopt when neither is there.
std::optional<std::uint64_t> meminfo_available(const std::map<std::string, std::uint64_t>& kv);
// /proc/swaps rows (sizes in KiB in the file) -> bytes; header and malformed rows are dropped.
std::vector<SwapDevice> parse_swaps(std::string_view text);
// "always [madvise] never" -> "madvise"; nullopt when no bracketed choice.
std::optional<std::string> parse_bracketed_choice(std::string_view text);

// Everything of MemoryFacts except PSI (psi.cpp) and swappiness (sysctl.cpp).
MemoryFacts read_memory(const HostRoot& root);

// The virtio balloon through which this guest's kernel reports free memory to its host (free page
// reporting, Linux Documentation/mm/free_page_reporting.rst): a virtio device of id 0x0005 whose
// negotiated features (one '0'/'1' per bit) have bit 5, VIRTIO_BALLOON_F_REPORTING, set. Its name
// under /sys/bus/virtio/devices, or nullopt. There, a transparent huge page taken from memory
// that was free for more than 2 s is backed again by the host as it is first touched.
std::optional<std::string> free_page_reporting_device(const HostRoot& root);

}  // namespace plumb
