// Host facts: the target process: environment variables, resource limits, status (owner: host helper B).
#pragma once

#include "core/json.h"

namespace plumb {

struct ProcessFacts {
  bool collected = false;  // placeholder until the collector fills it
  bool operator==(const ProcessFacts&) const = default;
};
PLUMB_JSON(ProcessFacts, collected)

}  // namespace plumb
