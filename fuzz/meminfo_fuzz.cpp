// Fuzzes the /proc/meminfo, /proc/swaps and THP bracketed-choice parsers.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/memory.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)plumb::parse_meminfo(text);
  (void)plumb::parse_swaps(text);
  (void)plumb::parse_bracketed_choice(text);
  return 0;
}
