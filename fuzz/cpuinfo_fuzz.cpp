// Fuzzes the /proc/cpuinfo and CPU-list parsers.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/cpu.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)plumb::parse_cpuinfo(text);
  (void)plumb::parse_cpulist(text);
  return 0;
}
