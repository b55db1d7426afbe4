// Fuzzes the parser of the step benchmark script's output (JSON lines from a user's Python).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bench/step.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto r = plumb::parse_step_output(std::string_view(reinterpret_cast<const char*>(data), size));
  (void)r;
  return 0;
}
