// Facts of one area: issue 4 (profiler traces).
#pragma once

#include "core/json.h"

namespace plumb {

struct TraceFacts {
  bool collected = false;  // placeholder until the area's collectors fill it
  bool operator==(const TraceFacts&) const = default;
};
PLUMB_JSON(TraceFacts, collected)

}  // namespace plumb
