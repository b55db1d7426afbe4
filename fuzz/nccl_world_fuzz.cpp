// Fuzzes the line protocol of plumb-fleet's NCCL children (the probe answer and the all-reduce
// sweep) and the nccl-tests run rank 0 makes of a sweep.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze/nccl_tests.h"
#include "bench/nccl_world.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)plumb::parse_probe(text);
  auto r = plumb::parse_nccl_world(text);
  if (r) {
    plumb::NcclTestsRun run = plumb::nccl_world_run(*r, 16, 2, "fuzz");
    (void)plumb::summarize(run);
  }
  return 0;
}
