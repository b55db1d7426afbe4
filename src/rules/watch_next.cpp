// Which L3 checks follow each L2 watch finding (the funnel's downward step).
#include "rules/watch_next.h"

#include <algorithm>

#include "core/catalog.h"
#include "core/registry.h"

namespace plumb {

namespace {

bool id_under(const std::string& id, const std::string& prefix) {
  if (prefix.empty()) return false;
  std::string p = prefix.back() == '.' ? prefix : prefix + ".";
  return id == prefix || id.rfind(p, 0) == 0;
}

bool matches_some_rule(const std::string& prefix) {
  return std::any_of(rules().begin(), rules().end(), [&](const RuleInfo& r) { return id_under(r.id, prefix); });
}

}  // namespace

// Areas that commonly cause each behaviour (the funnel: an L2 symptom always points at a verifiable
// L3 setting).
// Prefixes are catalogue areas (l3.storage.*, l3.compute.* ...); single ids where only one row
// of an area applies. The rows' own `explains` lists add the rest in next_checks().
const std::map<std::string, std::vector<std::string>>& next_check_areas() {
  static const std::map<std::string, std::vector<std::string>> m{
      // The GPU waits: for data (storage, where it lives), for the CPU (cgroup grant vs. thread
      // pools, governor, NUMA), for the framework (launch blocking, CUDA not used at all).
      {"l2.compute.gpu_underutilized", {"l3.storage", "l3.compute", "l3.framework"}},
      // Allocate/free cycles: the framework's settings; a MIG slice leaves the allocator at its
      // ceiling, where it frees its cache and retries.
      {"l2.watch.vram_sawtooth", {"l3.framework", "l3.gpu.mig"}},
      // CPU at its limit: the cgroup grant vs. thread pools, the governor, NUMA balancing.
      {"l2.compute.cpu_saturated", {"l3.compute"}},
      // IO stalls: the block layer settings and where the data lives; swapping is IO too.
      {"l2.watch.io_bound", {"l3.storage", "l3.memory.swap_active"}},
      // One GPU moving far more than its peers (a wrong topology file or communication group;
      // PXN relaying a remote NIC's traffic through one GPU).
      {"l2.watch.pcie_imbalance", {"l3.comm.topo_file", "l3.comm.visible_devices_span", "l3.comm.gpu_nic_affinity"}},
      // Clock reductions: temperature, the throttle reasons NVML reports.
      {"l2.watch.throttling", {"l3.gpu.throttle", "l3.gpu.temperature"}},
  };
  return m;
}

bool names_l3_rows(const std::string& prefix) {
  const auto& rows = catalog();
  return std::any_of(rows.begin(), rows.end(),
                     [&](const auto& kv) { return kv.second.layer == Layer::L3 && id_under(kv.first, prefix); });
}

std::vector<std::string> next_checks(const std::string& l2_id) {
  std::vector<std::string> out;
  auto add = [&](const std::string& s) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  auto it = next_check_areas().find(l2_id);
  if (it != next_check_areas().end()) {
    for (const auto& p : it->second) {
      if (names_l3_rows(p) && matches_some_rule(p)) add(p);
    }
  }
  for (const auto& id : l3_causes_of(l2_id)) {
    bool covered = std::any_of(out.begin(), out.end(), [&](const std::string& p) { return id_under(id, p); });
    if (!covered && matches_some_rule(id)) add(id);
  }
  return out;
}

std::string next_checks_command(const std::string& l2_id) {
  auto ids = next_checks(l2_id);
  if (ids.empty()) return "`plumb check`";
  std::string s;
  for (const auto& id : ids) s += (s.empty() ? "" : ",") + id;
  return "`plumb check --only " + s + "`";
}

}  // namespace plumb
