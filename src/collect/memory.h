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

}  // namespace plumb
