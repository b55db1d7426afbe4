// Fuzzes the torch.cuda.memory_summary() table and CUDA OOM message parsers, and the analysis.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze/memory_stats.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto in = plumb::parse_memory_summary(std::string_view(reinterpret_cast<const char*>(data), size));
  (void)plumb::analyze_memory(in, plumb::Thresholds(), {1ull << 34, "fuzz"});
  return 0;
}
