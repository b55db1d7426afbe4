// Fuzzes the /proc/<pid>/maps and environ parsers of the CUDA library search.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/gpu_cuda.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view s(reinterpret_cast<const char*>(data), size);
  plumb::parse_proc_maps(s);
  plumb::parse_proc_maps_paths(s);
  plumb::parse_environ(s);
  return 0;
}
