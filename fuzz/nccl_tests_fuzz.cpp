// Fuzzes the nccl-tests log parser (text and JSON) and the summary of what it returns.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze/nccl_tests.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = plumb::parse_nccl_tests(text, "fuzz");
  if (r) {
    plumb::summarize(*r);
    plumb::infer_ceiling(*r, plumb::device_bus_prefixes(text), std::nullopt, nullptr, 100.0, 1, "fuzz");
  }
  return 0;
}
