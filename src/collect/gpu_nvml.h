// GPU facts from NVML (loaded at run time), keyed by UUID and PCI bus id, under a deadline.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/context.h"
#include "core/facts/gpu.h"
#include "core/knowledge/throttle.h"  // describe_event_reasons: the reason bits named
#include "vendor/nvml_devices.h"      // normalise_bus_id

namespace plumb {

// "PIX", "PXB", "PHB", "NODE", "SYS", "internal" for an NVML topology level.
std::string topology_level_name(int level);

// Reads everything NVML tells about the GPUs. `budget` bounds the whole read: NVML calls run on a
// worker thread, and a call still running at the end is named in GpuFacts::stalled_call while the
// devices finished so far are kept.
GpuFacts read_gpu_facts(const Context& ctx, std::chrono::milliseconds budget);

}  // namespace plumb
