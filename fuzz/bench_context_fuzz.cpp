// Fuzzes the benchmark context parsers: /proc/loadavg, /proc/cpuinfo and CPU lists (sysfs cpulist).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bench/context.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view s(reinterpret_cast<const char*>(data), size);
  (void)plumb::parse_loadavg(s);
  (void)plumb::parse_cpu_model(s);
  (void)plumb::bench_cpu_ids(s);
  return 0;
}
