// Facts of one area: issue 3 (NVML and CUDA libraries).
#pragma once

#include "core/json.h"

namespace plumb {

struct GpuFacts {
  bool collected = false;  // placeholder until the area's collectors fill it
  bool operator==(const GpuFacts&) const = default;
};
PLUMB_JSON(GpuFacts, collected)

}  // namespace plumb
