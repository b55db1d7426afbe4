// Fuzzes the PSI (/proc/pressure/*) parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/psi.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)plumb::parse_pressure(text);
  return 0;
}
