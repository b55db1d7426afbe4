// Fuzzes the Triton config.pbtxt reader (`plumb check --model-repo DIR`): the protobuf text
// format subset and the model facts taken from it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/triton_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto m = plumb::parse_triton_config(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz", "config.pbtxt");
  (void)m;
  (void)plumb::parse_cmdline(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
