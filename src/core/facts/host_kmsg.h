// Host facts: kernel log events: OOM kills, NVIDIA Xid lines (owner: host helper A).
#pragma once

#include "core/json.h"

namespace plumb {

struct KernelLogFacts {
  bool collected = false;  // placeholder until the collector fills it
  bool operator==(const KernelLogFacts&) const = default;
};
PLUMB_JSON(KernelLogFacts, collected)

}  // namespace plumb
