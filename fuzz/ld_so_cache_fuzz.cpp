// Fuzzes the /etc/ld.so.cache parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "vendor/ld_cache.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  plumb::parse_ld_so_cache(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
