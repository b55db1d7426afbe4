// Fuzzes the os-release parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/os.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  plumb::parse_os_release(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
