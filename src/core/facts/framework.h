// Facts of one area: issue 7 (Python framework probe).
#pragma once

#include "core/json.h"

namespace plumb {

struct FrameworkFacts {
  bool collected = false;  // placeholder until the area's collectors fill it
  bool operator==(const FrameworkFacts&) const = default;
};
PLUMB_JSON(FrameworkFacts, collected)

}  // namespace plumb
