// Full GPU collection (NVML through the function table, 8 GPUs, topology of 28 pairs) against the
// fake library's healthy 8xH100 scenario. Target: under 50 ms of plumb's own time per collection.
// Run: build/release/bench/gpu_collect_bench (needs the fake library built: target fake-nvml).
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "collect/gpu_nvml.h"
#include "core/registry.h"

namespace {

void BM_GpuCollect8xH100(benchmark::State& state) {
  std::string scen = std::string(PLUMB_TEST_DIR) + "/fixtures/gpu/scenarios/h100-8x-healthy.json";
  ::setenv("PLUMB_FAKE_NVML_SCENARIO", scen.c_str(), 1);
  plumb::Context ctx;
  ctx.root = plumb::HostRoot(std::string(PLUMB_TEST_DIR) + "/fixtures/gpu/root-empty");
  ctx.nvml_lib = std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-nvml.so";
  for (auto _ : state) {
    plumb::GpuFacts g = plumb::read_gpu_facts(ctx, std::chrono::milliseconds(5000));
    if (g.devices.size() != 8) state.SkipWithError(("collection failed: " + g.unavailable).c_str());
    benchmark::DoNotOptimize(g);
  }
}
BENCHMARK(BM_GpuCollect8xH100)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
