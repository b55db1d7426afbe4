// Host facts: cgroup v1/v2 of the target process: memory limit, oom_kill events, CPU quota, cpuset (owner: host helper A).
#pragma once

#include "core/json.h"

namespace plumb {

struct CgroupFacts {
  bool collected = false;  // placeholder until the collector fills it
  bool operator==(const CgroupFacts&) const = default;
};
PLUMB_JSON(CgroupFacts, collected)

}  // namespace plumb
