// GPU clocks and clock-event (throttle) reasons for the benchmark context block, through the
// GPU layer's NVML loader (gpu/nvml_loader.h), the one dlopen of NVML in plumb.
#pragma once

#include <string>
#include <vector>

#include "core/facts/bench.h"

namespace plumb {

// One entry per GPU NVML sees; empty when NVML cannot be loaded or initialised.
std::vector<BenchGpuState> read_gpu_states(const std::string& nvml_lib);

}  // namespace plumb
