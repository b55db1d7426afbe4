// Fuzzes the framework probe's answer parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/python_probe.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto r = plumb::parse_probe_output(std::string_view(reinterpret_cast<const char*>(data), size), "python3");
  (void)r;
  return 0;
}
