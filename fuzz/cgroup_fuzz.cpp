// Fuzzes the cgroup file parsers (/proc/<pid>/cgroup, memory.max, cpu.max, cfs quota, memory.events); cpu lists: cpulist_fuzz.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/cgroup.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  plumb::parse_proc_cgroup(text);
  (void)plumb::parse_memory_limit(text);
  (void)plumb::parse_cpu_max(text);
  auto nl = text.find('\n');
  (void)plumb::parse_cfs_quota(text.substr(0, nl), nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1));
  plumb::parse_flat_keyed(text);
  return 0;
}
