// `plumb topo`: the GPU/NIC matrix in nvidia-smi topo -m style with CPU/NUMA affinity, close-GPU
// groups with their CUDA_VISIBLE_DEVICES value, the job's GPU set judged, an NCCL topology XML;
// facts.comm.topology and facts.topo rendered by the shared renderers (report/topo_block.cpp).
#include <chrono>
#include <iostream>
#include <memory>
#include <set>

#include "analyze/topology.h"
#include "collect/nccl_topo_xml.h"
#include "engine/machine.h"
#include "engine/topo.h"
#include "engine/output.h"
#include "core/atomic_file.h"
#include "core/registry.h"
#include "core/text.h"

namespace plumb {

namespace {

// The GPU layer's collectors (if any) run first so GPUs get names and NVLink data.
void collect_machine(const Context& ctx, Facts& facts) {
  for (const auto& c : collectors()) {
    if (starts_with(c.id, "collect.gpu") || starts_with(c.id, "collect.nvml")) collect_one(ctx, c.id, facts);
  }
  for (const char* id : {"collect.topology", "collect.network", "collect.nccl_env"}) collect_one(ctx, id, facts);
}

XmlCpuInfo cpu_info(const HostRoot& root, const Topology& t) {
  XmlCpuInfo c;
  if (auto text = root.read("/proc/cpuinfo")) c = parse_cpuinfo_for_nccl(*text);
  std::set<int> nodes;
  for (const auto& f : t.pci) {
    if (f.numa_node) nodes.insert(*f.numa_node);
  }
  for (int n : nodes) {
    if (auto m = root.read_value("/sys/devices/system/node/node" + std::to_string(n) + "/cpumap")) c.node_cpumap[n] = *m;
  }
  return c;
}

std::string labels_of(const Topology& t, const std::vector<int>& set) {
  std::string s;
  for (int g : set) s += (s.empty() ? "" : ",") + t.gpus[static_cast<std::size_t>(g)].label;
  return s;
}

}  // namespace

int run_topo(const TopoOptions& a) {
  if (a.group < 0) throw UsageError("--group must be a positive number of GPUs");
  check_output(a.output);  // fails early with the hint
  auto start = std::chrono::steady_clock::now();
  Context ctx = make_context(a.machine);
  Report r = new_report("topo", host_name(ctx.root));
  Facts& facts = r.facts;
  facts.meta.root = ctx.root.root();
  if (!a.from_text.empty()) {
    auto text = read_user_file(a.from_text);
    if (!text) throw UsageError("cannot read " + text.error().message);
    auto t = parse_topo_text(*text);
    if (!t) throw UsageError(a.from_text + ": " + t.error().message);
    t->source = "nvidia-smi topo -m text: " + a.from_text;
    facts.comm.topology = Fact<Topology>::of(*t, a.from_text);
    facts.meta.hostname = a.from_text;
    collect_one(ctx, "collect.nccl_env", facts);
  } else {
    collect_machine(ctx, facts);
  }
  if (!facts.comm.topology.has()) throw UsageError("cannot read the PCI tree: " + facts.comm.topology.why());
  const Topology& t = *facts.comm.topology;
  facts.meta.target_pid = ctx.pid;
  if (!a.nccl_xml.empty()) {
    auto xml = write_nccl_topo_xml(t, cpu_info(ctx.root, t), facts.comm.ib_ports.has() ? *facts.comm.ib_ports : std::vector<IbPort>{});
    if (!xml) throw UsageError("--nccl-xml: " + xml.error().message);
    auto w = write_file_atomic(a.nccl_xml, *xml);
    if (!w) throw UsageError(w.error().message);
    facts.topo.nccl_xml = a.nccl_xml;
  }
  facts.topo.collected = true;
  facts.topo.group_size = a.group;
  bool cut = false;
  for (const auto& g : close_groups(t, a.group, 16, &cut)) {
    facts.topo.groups.push_back({g.gpus, labels_of(t, g.gpus), g.worst, visible_devices_value(g.gpus)});
  }
  facts.topo.groups_cut = cut;
  facts.meta.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  Selection sel;
  sel.only = {"l3.comm.visible_devices_span", "l3.comm.gpu_nic_affinity", "l3.comm.p2p_disabled", "l3.comm.topo_file"};
  r.findings = judge(facts, Thresholds{}, sel);
  emit(r, a.output);
  return exit_code_for(r.findings);
}


}  // namespace plumb
