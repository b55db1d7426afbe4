// Facts of one area: issue 8 (L2 sampling over time).
#pragma once

#include "core/json.h"

namespace plumb {

struct WatchFacts {
  bool collected = false;  // placeholder until the area's collectors fill it
  bool operator==(const WatchFacts&) const = default;
};
PLUMB_JSON(WatchFacts, collected)

}  // namespace plumb
