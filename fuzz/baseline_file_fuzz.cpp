// Fuzzes the baseline exchange file parser (`plumb baseline import FILE`, `compare --baseline FILE`).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "store/baseline_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto r = plumb::parse_baseline_file(std::string_view(reinterpret_cast<const char*>(data), size));
  if (r) (void)plumb::baseline_file_json(*r);
  return 0;
}
