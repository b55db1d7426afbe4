// Fuzzes the kernel CPU-list parser (cpuset.cpus, node*/cpulist, Cpus_allowed_list).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/cpulist.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = plumb::parse_cpulist(text);
  if (r && !r->empty() && r->back() >= plumb::kCpuNumberLimit) __builtin_trap();
  return 0;
}
