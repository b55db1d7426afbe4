// The CPUs a process may actually use, for the rules that weigh thread counts against them
// (l3.compute.thread_oversubscription, l3.serving.thread_demand): the cgroup grant (CPU quota or
// cpuset), else the affinity mask, else the host's logical CPUs, with the evidence naming where
// the number came from.
#pragma once

#include <optional>

#include "core/facts.h"
#include "core/finding.h"

namespace plumb {

struct CpuBudget {
  double cpus = 0;
  Evidence evidence;
  bool from_cgroup = false;
};
std::optional<CpuBudget> cpu_budget(const Facts& f);

}  // namespace plumb
