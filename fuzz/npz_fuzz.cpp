// Fuzzes the .npz reader (`plumb outdiff A.npz B.npz`): zip central directory, zip64 extra
// fields, stored and deflated members, and the .npy inside each.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  plumb::NpyLimits limits;
  limits.max_data_bytes = 1u << 20;
  limits.max_total_bytes = 4u << 20;
  auto r = plumb::parse_npz(std::string_view(reinterpret_cast<const char*>(data), size), limits);
  if (r) {
    for (const auto& m : *r) {
      if (m.array && m.array->count > 0) {
        double re = 0, im = 0;
        m.array->value(0, re, im);
      }
    }
  }
  return 0;
}
