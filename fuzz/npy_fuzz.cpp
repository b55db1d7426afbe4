// Fuzzes the .npy reader (`plumb outdiff A.npy B.npy`): header dict, dtype, shape and data size.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  plumb::NpyLimits limits;
  limits.max_data_bytes = 1u << 20;
  auto r = plumb::parse_npy(std::string_view(reinterpret_cast<const char*>(data), size), limits);
  if (r && r->count > 0) {
    double re = 0, im = 0;
    r->value(r->count - 1, re, im);
  }
  return 0;
}
