// Fuzzes the torch.cuda.memory_stats() JSON and printed-OrderedDict parsers, and the analysis.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze/memory_stats.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto j = plumb::parse_memory_stats_json(text);
  auto r = plumb::parse_memory_stats_repr(text);
  if (j) (void)plumb::analyze_memory(*j, plumb::Thresholds(), {});
  if (r) (void)plumb::analyze_memory(*r, plumb::Thresholds(), {});
  return 0;
}
