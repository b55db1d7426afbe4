// Fuzzes the benchmark context parser of /proc/loadavg (cpuinfo and CPU lists have their own targets).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bench/context.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view s(reinterpret_cast<const char*>(data), size);
  (void)plumb::parse_loadavg(s);
  return 0;
}
