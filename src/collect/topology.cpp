// The GPU/NIC topology fact: nvidia-smi-style levels from the sysfs PCI tree, NVLink counts from NVML.
#include "collect/topology.h"

#include <algorithm>
#include <map>
#include <set>

#include "collect/pci.h"
#include "core/knowledge/links.h"
#include "core/text.h"

namespace plumb {

namespace {

// Bridges on the path between two functions below one root port: up from a to the deepest
// shared bridge, and down to b. A PCIe switch crossed costs three (downstream, upstream,
// downstream port), so "at most one switch" means at most three bridges.
int bridges_between(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::size_t c = 0;
  while (c < a.size() && c < b.size() && a[c] == b[c]) ++c;
  return static_cast<int>((a.size() - c) + (b.size() - c) + 1);
}

}  // namespace

std::string pcie_level(const PciFunction& a, const PciFunction& b) {
  if (a.bus_id == b.bus_id) return "X";
  if (a.host_bridge != b.host_bridge || a.host_bridge.empty()) {
    // No NUMA information (single-socket machines report -1) counts as one node.
    return a.numa_node.value_or(0) == b.numa_node.value_or(0) ? "NODE" : "SYS";
  }
  if (a.bridges.empty() || b.bridges.empty() || a.bridges.front() != b.bridges.front()) return "PHB";
  return bridges_between(a.bridges, b.bridges) <= 3 ? "PIX" : "PXB";
}

Topology build_topology(const std::vector<PciFunction>& pci, const std::vector<NicRef>& nics, const GpuFacts& gpu) {
  Topology t;
  t.source = "/sys/bus/pci/devices";
  std::map<std::string, const PciFunction*> by_id;
  for (const auto& f : pci) by_id[f.bus_id] = &f;
  std::vector<const PciFunction*> devs;
  for (const auto& f : pci) {
    if (f.vendor == "0x10de" && is_gpu_class(f.class_code)) {
      TopoGpu g;
      g.label = "GPU" + std::to_string(t.gpus.size());
      g.bus_id = f.bus_id;
      g.cpulist = f.local_cpulist;
      g.numa_node = f.numa_node;
      for (const auto& d : gpu.devices) {
        if (d.bus_id == f.bus_id) g.name = d.name;
      }
      if (g.name.empty()) {
        if (const auto* m = gpu_model_by_pci_device(f.device)) g.name = std::string(m->name);
      }
      t.gpus.push_back(std::move(g));
      devs.push_back(&f);
    }
    if (is_nvswitch(f)) ++t.nvswitch_count;
  }
  for (const auto& n : nics) {
    auto it = by_id.find(n.bus_id);
    if (it == by_id.end()) continue;
    TopoNic nic;
    nic.label = "NIC" + std::to_string(t.nics.size());
    nic.name = n.name;
    nic.bus_id = n.bus_id;
    nic.kind = n.kind;
    nic.cpulist = it->second->local_cpulist;
    nic.numa_node = it->second->numa_node;
    t.nics.push_back(std::move(nic));
    devs.push_back(it->second);
  }
  std::size_t n = devs.size();
  t.pcie.assign(n, std::vector<std::string>(n));
  t.nvlinks.assign(n, std::vector<int>(n, 0));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) t.pcie[i][j] = i == j ? "X" : pcie_level(*devs[i], *devs[j]);
  }
  // Keep the functions an NCCL topology file needs: devices and the bridges above them.
  std::set<std::string> keep;
  for (const auto* d : devs) {
    keep.insert(d->bus_id);
    keep.insert(d->bridges.begin(), d->bridges.end());
  }
  for (const auto& f : pci) {
    if (keep.count(f.bus_id) || is_nvswitch(f)) t.pci.push_back(f);
  }
  merge_nvml_links(t, gpu);
  return t;
}

void merge_nvml_links(Topology& topo, const GpuFacts& gpu) {
  if (!gpu.collected || topo.gpus.empty() || topo.nvlinks.size() < topo.gpus.size()) return;
  const std::size_t n = topo.gpus.size();
  std::map<std::string, std::size_t> index;  // bus id -> topology GPU index
  for (std::size_t i = 0; i < n; ++i) index[topo.gpus[i].bus_id] = i;
  std::set<std::string> switches;  // NVSwitch functions visible on the PCI bus
  for (const auto& f : topo.pci) {
    if (is_nvswitch(f)) switches.insert(f.bus_id);
  }
  std::vector<int> to_switch(n, 0);
  bool known = true;
  std::size_t matched = 0;
  for (const auto& d : gpu.devices) {
    auto it = index.find(d.bus_id);
    if (it == index.end()) continue;
    ++matched;
    const std::size_t i = it->second;
    if (!d.nvlink_active.has()) {  // NOT_SUPPORTED is an answer (no NVLink); a failure is not
      if (d.nvlink_active.why().find("NOT_SUPPORTED") == std::string::npos) known = false;
      continue;
    }
    bool any_active = std::find(d.nvlink_active->begin(), d.nvlink_active->end(), true) != d.nvlink_active->end();
    if (!any_active) continue;
    if (!d.nvlink_peers.has()) {  // links up but their far ends unknown: the counts would be guesses
      known = false;
      continue;
    }
    for (const auto& p : *d.nvlink_peers) {
      if (p.remote_type == "switch" || switches.count(p.remote_bus_id) > 0) {
        ++to_switch[i];
        continue;
      }
      auto j = index.find(p.remote_bus_id);
      if (j != index.end() && j->second != i) ++topo.nvlinks[i][j->second];
    }
  }
  if (matched == 0) return;
  // Through the NVSwitch fabric every GPU reaches every other with all its switch links; nvidia-smi
  // prints the pair's count (NV12 on DGX A100, NV18 on HGX H100).
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i != j && to_switch[i] > 0 && to_switch[j] > 0) topo.nvlinks[i][j] += std::min(to_switch[i], to_switch[j]);
    }
  }
  // NVML reports each GPU's own links: a direct link seen from one end only (a GPU outside the
  // matrix answered, the other did not) still connects the pair.
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) topo.nvlinks[i][j] = topo.nvlinks[j][i] = std::max(topo.nvlinks[i][j], topo.nvlinks[j][i]);
  }
  if (known && matched == n) topo.nvlink_known = true;
}

}  // namespace plumb
