// The CPUs a process may use: cgroup grant, else affinity mask, else logical CPUs.
#include "rules/cpu_budget.h"

#include "core/text.h"

namespace plumb {

std::optional<CpuBudget> cpu_budget(const Facts& f) {
  const auto& cg = f.host.cgroup.effective_cpus;
  if (cg.has() && *cg > 0) return CpuBudget{*cg, {"cgroup CPUs", fmt_num(*cg, 2), cg.source}, true};
  const auto& allowed = f.host.process.cpus_allowed;
  if (allowed.has() && *allowed > 0) {
    return CpuBudget{static_cast<double>(*allowed), {"Cpus_allowed_list", *f.host.process.cpus_allowed_list, allowed.source}, false};
  }
  const auto& logical = f.host.cpu.logical_cpus;
  if (logical.has() && *logical > 0) {
    return CpuBudget{static_cast<double>(*logical), {"logical CPUs", std::to_string(*logical), logical.source}, false};
  }
  return std::nullopt;
}

}  // namespace plumb
