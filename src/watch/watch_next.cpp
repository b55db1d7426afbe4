// Which L3 checks follow each L2 watch finding (the funnel's downward step).
#include "watch/watch_next.h"

#include <algorithm>
#include <map>

#include "core/catalog.h"
#include "core/registry.h"

namespace plumb {

namespace {

// Areas that commonly cause each behaviour (seed: L2 always points at a verifiable L3 setting).
const std::map<std::string, std::vector<std::string>>& candidates() {
  static const std::map<std::string, std::vector<std::string>> m{
      {"l2.watch.gpu_busy_low", {"l3.storage", "l3.cpu", "l3.cgroup", "l3.framework", "l3.data", "l3.gpu"}},
      {"l2.watch.vram_sawtooth", {"l3.framework", "l3.memory", "l3.gpu"}},
      {"l2.watch.cpu_saturated", {"l3.cgroup", "l3.cpu", "l3.process", "l3.framework"}},
      {"l2.watch.io_bound", {"l3.storage", "l3.data", "l3.memory"}},
      {"l2.watch.pcie_imbalance", {"l3.topo", "l3.gpu", "l3.comm", "l3.network"}},
      {"l2.watch.throttling", {"l3.gpu", "l3.platform"}},
  };
  return m;
}

bool matches_some_rule(const std::string& prefix) {
  std::string p = prefix.back() == '.' ? prefix : prefix + ".";
  return std::any_of(rules().begin(), rules().end(), [&](const RuleInfo& r) { return r.id == prefix || r.id.rfind(p, 0) == 0; });
}

}  // namespace

std::vector<std::string> next_checks(const std::string& l2_id) {
  std::vector<std::string> out;
  auto add = [&](const std::string& s) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  auto it = candidates().find(l2_id);
  if (it != candidates().end()) {
    for (const auto& p : it->second) {
      if (matches_some_rule(p)) add(p);
    }
  }
  for (const auto& id : l3_causes_of(l2_id)) {
    bool covered = std::any_of(out.begin(), out.end(), [&](const std::string& p) { return id.rfind(p + ".", 0) == 0; });
    if (!covered) add(id);
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
