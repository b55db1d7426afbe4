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

namespace plumb {

// NVML's "00000000:3B:00.0" (or the legacy "0000:3B:00.0") -> sysfs's "0000:3b:00.0"; nullopt on garbage.
std::optional<std::string> normalise_bus_id(std::string_view nvml_bus_id);

// "PIX", "PXB", "PHB", "NODE", "SYS", "internal" for an NVML topology level.
std::string topology_level_name(int level);

// Reads everything NVML tells about the GPUs. `budget` bounds the whole read: NVML calls run on a
// worker thread, and a call still running at the end is named in GpuFacts::stalled_call while the
// devices finished so far are kept.
GpuFacts read_gpu_facts(const Context& ctx, std::chrono::milliseconds budget);

}  // namespace plumb
