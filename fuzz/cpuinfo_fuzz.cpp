// Fuzzes the /proc/cpuinfo parser (the CPU-list parser has cpulist_fuzz).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/cpu.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)plumb::parse_cpuinfo(text);
  return 0;
}
