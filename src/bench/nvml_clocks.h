// GPU clocks and clock-event (throttle) reasons for the benchmark context block, through a
// minimal dlopen of NVML. Kept self-contained under bench/ (the GPU area has the full loader).
#pragma once

#include <string>
#include <vector>

#include "core/facts/bench.h"

namespace plumb {

// One entry per GPU NVML sees; empty when NVML cannot be loaded or initialised.
std::vector<BenchGpuState> read_gpu_states(const std::string& nvml_lib);

}  // namespace plumb
