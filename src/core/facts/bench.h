// Facts of one area: issue 6 (benchmarks and baselines).
#pragma once

#include "core/json.h"

namespace plumb {

struct BenchFacts {
  bool collected = false;  // placeholder until the area's collectors fill it
  bool operator==(const BenchFacts&) const = default;
};
PLUMB_JSON(BenchFacts, collected)

}  // namespace plumb
