// Fuzzes the /proc/<pid>/environ parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/process.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)plumb::parse_environ(text);
  return 0;
}
