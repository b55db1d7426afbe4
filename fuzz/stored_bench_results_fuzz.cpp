// Fuzzes the reading of a stored run's benchmark results from the history database (the earlier
// runs that l2.bench.noise and the baseline comparison weigh a change against).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "store/history.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto results = plumb::stored_bench_results(std::string_view(reinterpret_cast<const char*>(data), size));
  std::size_t metrics = 0;
  for (const auto& r : results) metrics += r.metrics.size();
  (void)metrics;
  return 0;
}
