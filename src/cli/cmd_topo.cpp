// `plumb topo`: the GPU/NIC matrix in nvidia-smi topo -m style with CPU/NUMA affinity, close-GPU
// groups with their CUDA_VISIBLE_DEVICES value, the job's GPU set judged, an NCCL topology XML.
#include <iostream>
#include <memory>
#include <set>

#include "analyze/topology.h"
#include "collect/nccl_topo_xml.h"
#include "cli/check_options.h"
#include "cli/subcommand.h"
#include "core/atomic_file.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"

namespace plumb {

namespace {

struct TopoArgs {
  MachineOptions machine;
  OutputOptions output;
  std::string from_text;
  std::string nccl_xml;
  int group = 0;
};

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

std::string render_text(const Topology& t, const std::vector<GpuGroup>& groups, int k, const std::vector<Finding>& findings,
                        Lang lang, const std::string& host) {
  std::string out = "plumb topo — " + host + " (" + t.source + ")\n\n";
  TopoWords w{tr(lang, "topo.cpu_affinity"), tr(lang, "topo.numa_affinity"), tr(lang, "topo.nic_legend")};
  out += render_topo_matrix(t, w);
  out += "\n" + tr(lang, "topo.legend") + "\n";
  if (!t.pci.empty()) {
    out += "\n" + tr(lang, "topo.devices") + ":\n";
    for (const auto& g : t.gpus) {
      std::string link;
      auto speed = [](std::string v) {
        if (v.size() > 5 && v.compare(v.size() - 5, 5, " PCIe") == 0) v.resize(v.size() - 5);
        return v.empty() ? std::string("?") : v;
      };
      for (const auto& f : t.pci) {
        if (f.bus_id != g.bus_id) continue;
        link = "PCIe " + speed(f.cur_link_speed) + " x" + (f.cur_link_width ? std::to_string(*f.cur_link_width) : "?") +
               " (max " + speed(f.max_link_speed) + " x" +
               (f.max_link_width ? std::to_string(*f.max_link_width) : "?") + ")";
      }
      out += "  " + g.label + "  " + g.bus_id + "  " + (g.name.empty() ? "?" : g.name) + "  " + link + "  NUMA " +
             (g.numa_node ? std::to_string(*g.numa_node) : "N/A") + "\n";
    }
    for (const auto& n : t.nics) {
      out += "  " + n.label + "  " + n.bus_id + "  " + n.name + " (" + n.kind + ")  NUMA " +
             (n.numa_node ? std::to_string(*n.numa_node) : "N/A") + "\n";
    }
    if (!t.nvlink_known) {
      out += "\n" + fill(tr(lang, "topo.nvlink_unknown"), {{"n", std::to_string(t.nvswitch_count)}}) + "\n";
    }
  }
  if (k > 0) {
    out += "\n" + fill(tr(lang, "topo.groups"), {{"k", std::to_string(k)}}) + "\n";
    if (groups.empty()) out += "  " + fill(tr(lang, "topo.no_groups"), {{"n", std::to_string(t.gpus.size())}}) + "\n";
    for (const auto& g : groups) {
      out += "  " + labels_of(t, g.gpus) + "  " + tr(lang, "topo.worst") + " " + g.worst + "  " + visible_devices_value(g.gpus) + "\n";
    }
  } else if (t.gpus.size() > 1) {
    out += "\n" + tr(lang, "topo.group_hint") + "\n";
  }
  bool header = false;
  for (const auto* f : ordered(findings)) {
    if (f->status == Status::pass || f->status == Status::skip) continue;
    if (!header) {
      out += "\n" + tr(lang, "topo.findings") + ":\n";
      header = true;
    }
    out += "  [" + tr(lang, std::string("status.") + status_name(f->status)) + "] " + finding_message(*f, lang) + "\n";
    std::string fix = finding_fix(*f, lang);
    if (!fix.empty()) out += "         " + tr(lang, "label.fix") + ": " + fix + "\n";
  }
  return out;
}

int run_topo(const TopoArgs& a) {
  if (a.group < 0) throw UsageError("--group must be a positive number of GPUs");
  if (a.output.format != "term" && a.output.format != "json") {
    throw UsageError("unknown format '" + a.output.format + "' for topo (use term or json)");
  }
  RenderOptions ro = render_options(a.output);
  Facts facts;
  Context ctx = make_context(a.machine);
  std::string host = host_name(ctx.root);
  if (!a.from_text.empty()) {
    auto text = read_user_file(a.from_text);
    if (!text) throw UsageError("cannot read " + text.error().message);
    auto t = parse_topo_text(*text);
    if (!t) throw UsageError(a.from_text + ": " + t.error().message);
    t->source = "nvidia-smi topo -m text: " + a.from_text;
    facts.comm.topology = Fact<Topology>::of(*t, a.from_text);
    host = a.from_text;
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
  }
  auto groups = close_groups(t, a.group);
  Selection sel;
  sel.only = {"l3.comm.visible_devices_span", "l3.comm.gpu_nic_affinity", "l3.comm.p2p_disabled", "l3.comm.topo_file"};
  auto findings = judge(facts, Thresholds{}, sel);
  if (a.output.format == "json") {
    json j;
    j["topology"] = t;
    j["groups"] = json::array();
    for (const auto& g : groups) {
      j["groups"].push_back({{"gpus", g.gpus}, {"labels", labels_of(t, g.gpus)}, {"worst", g.worst},
                             {"cuda_visible_devices", visible_devices_value(g.gpus)}});
    }
    j["findings"] = findings;
    if (!a.nccl_xml.empty()) j["nccl_xml"] = a.nccl_xml;
    write_output(j.dump(2) + "\n", a.output.out);
  } else {
    write_output(render_text(t, groups, a.group, findings, ro.lang, host), a.output.out);
  }
  return exit_code_for(findings);
}

const bool kSub = register_subcommand({"topo", "GPU/NIC/NUMA topology, close-GPU groups, NCCL topology file", 30,
                                       [](CLI::App& app) {
                                         auto a = std::make_shared<TopoArgs>();
                                         add_machine_options(app, a->machine);
                                         add_output_options(app, a->output);
                                         app.add_option("--from-topo-text", a->from_text,
                                                        "analyse a saved `nvidia-smi topo -m` output instead of this machine");
                                         app.add_option("--group", a->group, "propose the closest sets of K GPUs");
                                         app.add_option("--nccl-xml", a->nccl_xml,
                                                        "write an NCCL topology XML (NCCL_TOPO_FILE) of this machine to FILE");
                                         return [a] { return run_topo(*a); };
                                       }});

const bool kUi = register_ui({
    {"topo.cpu_affinity", {"CPU Affinity", "CPU 亲和性"}},
    {"topo.numa_affinity", {"NUMA Affinity", "NUMA 亲和性"}},
    {"topo.nic_legend", {"NIC Legend", "网卡图例"}},
    {"topo.legend", {"Legend: X = self, NV# = bonded set of # NVLinks, PIX = at most one PCIe switch, PXB = several PCIe switches, "
                     "PHB = through a PCIe host bridge (CPU), NODE = between host bridges of one NUMA node, SYS = across NUMA nodes (QPI/UPI)",
                     "图例：X = 自身，NV# = # 条 NVLink 绑定，PIX = 至多一个 PCIe 交换机，PXB = 多个 PCIe 交换机，"
                     "PHB = 经过 PCIe 主桥（CPU），NODE = 同一 NUMA 节点内的主桥之间，SYS = 跨 NUMA 节点（QPI/UPI）"}},
    {"topo.devices", {"Devices", "设备"}},
    {"topo.nvlink_unknown", {"NVLink counts not read: the GPU layer's NVML link data is not available here ({n} NVSwitch devices on the PCI bus); "
                             "pass a saved `nvidia-smi topo -m` with --from-topo-text to see NV#",
                             "未读取 NVLink 数量：此处没有 GPU 层的 NVML 链路数据（PCI 总线上有 {n} 个 NVSwitch 设备）；"
                             "可用 --from-topo-text 传入保存的 `nvidia-smi topo -m` 查看 NV#"}},
    {"topo.groups", {"Closest sets of {k} GPUs (best worst-pair link first):", "{k} 张 GPU 的最近组合（按最差链路由好到差）："}},
    {"topo.no_groups", {"none: this machine has {n} GPUs", "无：本机只有 {n} 张 GPU"}},
    {"topo.worst", {"worst link", "最差链路"}},
    {"topo.group_hint", {"Use --group K to get the closest sets of K GPUs and their CUDA_VISIBLE_DEVICES value.",
                         "使用 --group K 获取 K 张 GPU 的最近组合及对应的 CUDA_VISIBLE_DEVICES 值。"}},
    {"topo.findings", {"Findings", "发现"}},
});

}  // namespace
}  // namespace plumb
