// GPU clocks and clock-event (throttle) reasons for the benchmark context block, through the
// NVML loader (vendor/nvml_loader.h) and its device list (vendor/nvml_devices.h).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/facts/bench.h"
#include "core/host_root.h"

namespace plumb {

// One entry per GPU NVML sees; empty when NVML cannot be loaded or initialised, or does not answer
// within `deadline` (the NVML calls run on a thread that is abandoned then). The processes on each
// GPU are named from /proc under `root`.
std::vector<BenchGpuState> read_gpu_states(const std::string& nvml_lib,
                                           std::chrono::milliseconds deadline = std::chrono::milliseconds(5000),
                                           const HostRoot& root = HostRoot("/"));

}  // namespace plumb
