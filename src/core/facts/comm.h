// Facts of one area: issue 5 (topology, NCCL, network).
#pragma once

#include "core/json.h"

namespace plumb {

struct CommFacts {
  bool collected = false;  // placeholder until the area's collectors fill it
  bool operator==(const CommFacts&) const = default;
};
PLUMB_JSON(CommFacts, collected)

}  // namespace plumb
