// Distributed layer, topology: the job's GPU set against the closest possible set, GPU<->NIC
// affinity, a given NCCL topology file against this machine, PCIe lanes lost.
#include <algorithm>
#include <map>
#include <set>

#include "analyze/topology.h"
#include "collect/nccl_env.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "rules/comm_common.h"
#include "core/tables.h"

namespace plumb {

namespace {

std::string join_labels(const Topology& t, const std::vector<int>& set) {
  std::string s;
  for (int g : set) s += (s.empty() ? "" : ",") + t.gpus[static_cast<std::size_t>(g)].label;
  return s;
}

std::vector<Finding> judge_visible(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.visible_devices_span";
  if (!f.comm.topology.has()) return {skipped(id, "topology: " + f.comm.topology.why())};
  auto env = job_env(f);
  if (!env) return {skipped(id, env.error().message)};
  const Topology& t = *f.comm.topology;
  Finding x;
  x.id = id;
  with_env_cmd(x, f);
  auto it = env->find("CUDA_VISIBLE_DEVICES");
  if (it == env->end()) {
    x.status = Status::pass;
    x.variant = "unset";
    x.arg("count", std::to_string(t.gpus.size()));
    return {x};
  }
  x.arg("value", it->second.value);
  x.add("CUDA_VISIBLE_DEVICES", it->second.value, it->second.source);
  auto set = resolve_visible_devices(it->second.value, t, f.gpu);
  if (!set) return {skipped(id, set.error().message)};
  std::vector<int> s = *set;
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  if (s.size() < 2) {
    x.status = Status::pass;
    x.variant = "single";
    return {x};
  }
  GpuGroup mine = score_group(t, s);
  auto best = close_groups(t, static_cast<int>(s.size()), 1);
  x.arg("gpus", join_labels(t, s)).arg("worst", mine.worst).arg("k", std::to_string(s.size()));
  x.add("worst link in the set", mine.worst + " (" + join_labels(t, s) + ")", t.source);
  x.threshold = "worst link of the set no worse than the closest set of the same size";
  if (!best.empty() && std::make_tuple(best.front().worst_cost, best.front().worst_pcie_cost) <
                           std::make_tuple(mine.worst_cost, mine.worst_pcie_cost)) {
    const GpuGroup& b = best.front();
    x.arg("best", join_labels(t, b.gpus)).arg("best_worst", b.worst).arg("suggest", visible_devices_value(b.gpus));
    x.add("closest set", b.worst + " (" + join_labels(t, b.gpus) + ")", t.source);
    // Crossing sockets (SYS) is the case that halves throughput; a smaller detour is worth a note.
    x.status = mine.worst == "SYS" || mine.worst_pcie_cost >= 600 ? Status::warn : Status::info;
    x.variant = "closer";
  } else {
    x.status = Status::pass;
  }
  return {x};
}

std::vector<Finding> judge_nic_affinity(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.gpu_nic_affinity";
  if (!f.comm.topology.has()) return {skipped(id, "topology: " + f.comm.topology.why())};
  const Topology& t = *f.comm.topology;
  if (t.gpus.empty()) return {skipped(id, "no GPU in the topology")};
  bool any_rdma = std::any_of(t.nics.begin(), t.nics.end(), [](const TopoNic& n) { return n.kind != "eth"; });
  if (t.nics.empty()) return {skipped(id, "no NIC in the topology")};
  // One finding per (closest NIC, link): a NIC across the sockets from 8 GPUs is one cause.
  std::vector<Finding> out;
  std::map<std::pair<std::string, std::string>, std::size_t> group;
  std::vector<std::vector<int>> members;
  for (std::size_t g = 0; g < t.gpus.size(); ++g) {
    std::string best_cell;
    std::string best_nic;
    int best_cost = 1 << 30;
    for (std::size_t n = 0; n < t.nics.size(); ++n) {
      if (any_rdma && t.nics[n].kind == "eth") continue;
      std::string c = topo_cell(t, g, t.gpus.size() + n);
      if (link_cost(c) < best_cost) {
        best_cost = link_cost(c);
        best_cell = c;
        best_nic = t.nics[n].name;
      }
    }
    auto [it, fresh] = group.try_emplace({best_nic, best_cell}, out.size());
    if (fresh) {
      Finding x;
      x.id = id;
      x.arg("nic", best_nic).arg("level", best_cell);
      x.threshold = "a NIC on the GPU's PCIe switch or NUMA node (not SYS)";
      x.status = best_cell == "SYS" ? Status::warn : Status::pass;
      out.push_back(std::move(x));
      members.emplace_back();
    }
    members[it->second].push_back(static_cast<int>(g));
    const TopoGpu& gpu = t.gpus[g];
    out[it->second].add("closest NIC", concat(gpu.label, gpu.bus_id.empty() ? "" : " " + gpu.bus_id, ": ", best_nic, " (", best_cell, ")"),
                        t.source);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].subject = join_labels(t, members[i]);
    out[i].arg("gpu", out[i].subject);
  }
  return out;
}

std::vector<Finding> judge_topo_file(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.topo_file";
  const auto& tf = f.comm.topo_file;
  Finding x;
  x.id = id;
  with_env_cmd(x, f);
  if (!tf.has() && tf.source.empty()) {
    if (tf.missing.empty()) return {skipped(id, "NCCL environment not collected")};
    x.status = Status::pass;
    x.variant = "unset";
    return {x};
  }
  x.arg("path", tf.source);
  if (!tf.has()) {
    x.status = starts_with(tf.missing, "relative path") ? Status::skip : Status::fail;
    x.variant = "unreadable";
    x.arg("why", tf.missing);
    if (x.status == Status::skip) x.arg("reason", tf.missing);
    x.add("NCCL_TOPO_FILE", tf.source, tf.missing);
    return {x};
  }
  const NcclTopoXml& file = *tf;
  x.add("GPUs in the file", std::to_string(file.gpu_bus_ids.size()), tf.source);
  if (!f.comm.topology.has() || f.comm.topology->pci.empty()) {
    x.status = Status::info;
    x.variant = "not_compared";
    return {x};
  }
  const Topology& t = *f.comm.topology;
  std::set<std::string> mine, theirs(file.gpu_bus_ids.begin(), file.gpu_bus_ids.end());
  for (const auto& g : t.gpus) mine.insert(g.bus_id);
  std::string absent, unlisted;
  for (const auto& b : theirs) {
    if (!mine.count(b)) absent += (absent.empty() ? "" : " ") + b;
  }
  for (const auto& b : mine) {
    if (!theirs.count(b)) unlisted += (unlisted.empty() ? "" : " ") + b;
  }
  std::set<std::string> my_nics;
  for (const auto& n : t.nics) my_nics.insert(n.bus_id);
  for (const auto& b : file.nic_bus_ids) {
    if (!my_nics.count(b)) absent += (absent.empty() ? "" : " ") + b;
  }
  x.arg("absent", absent.empty() ? "-" : absent).arg("unlisted", unlisted.empty() ? "-" : unlisted);
  x.add("bus ids in the file but not on this machine", absent.empty() ? "none" : absent, tf.source);
  x.add("GPUs of this machine missing from the file", unlisted.empty() ? "none" : unlisted, t.source);
  x.threshold = "every GPU/NIC bus id of the file exists here and every GPU here is in the file";
  x.status = absent.empty() && unlisted.empty() ? Status::pass : Status::fail;
  if (x.status == Status::fail) x.variant = "mismatch";
  return {x};
}

std::vector<Finding> judge_link_width(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.pcie_link_width";
  if (!f.comm.topology.has()) return {skipped(id, "topology: " + f.comm.topology.why())};
  const Topology& t = *f.comm.topology;
  if (t.pci.empty()) return {skipped(id, "no PCI functions (topology read from text)")};
  std::map<std::string, std::string> label;
  for (const auto& g : t.gpus) label[g.bus_id] = g.label;
  for (const auto& n : t.nics) label[n.bus_id] = n.name;
  // A GPU whose width NVML reported is judged by l3.gpu.pcie_width: one finding per defect.
  std::set<std::string> judged_by_nvml;
  for (const auto& d : f.gpu.devices) {
    if (d.pcie.width_current.has() && d.pcie.width_max.has()) judged_by_nvml.insert(d.bus_id);
  }
  std::vector<Finding> out;
  for (const auto& fn : t.pci) {
    auto it = label.find(fn.bus_id);
    if (it == label.end() || judged_by_nvml.count(fn.bus_id) != 0) continue;
    Finding x;
    x.id = id;
    x.subject = it->second + " " + fn.bus_id;
    std::string dir = "/sys/bus/pci/devices/" + fn.bus_id;
    std::string cur = fn.cur_link_width ? std::to_string(*fn.cur_link_width) : "?";
    std::string max = fn.max_link_width ? std::to_string(*fn.max_link_width) : "?";
    x.arg("dev", it->second).arg("cur", cur).arg("max", max).arg("bus", fn.bus_id);
    x.add("current_link_width", cur, dir + "/current_link_width");
    x.add("max_link_width", max, dir + "/max_link_width");
    x.add("current_link_speed", fn.cur_link_speed, dir + "/current_link_speed");
    x.threshold = "current_link_width == max_link_width";
    // Width 0 is what VMs report for passthrough devices: not a measurement.
    if (!fn.cur_link_width || !fn.max_link_width || *fn.cur_link_width == 0 || *fn.max_link_width == 0) continue;
    x.status = *fn.cur_link_width < *fn.max_link_width ? Status::warn : Status::pass;
    out.push_back(std::move(x));
  }
  if (out.empty()) {
    return {skipped(id, judged_by_nvml.empty() ? "no PCIe link width readable for GPUs or NICs"
                                               : "no NIC link width readable; GPU widths are judged by l3.gpu.pcie_width")};
  }
  return out;
}



}  // namespace
void rules_comm_topology_tables(Tables& t) {
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {"l3.comm.visible_devices_span", Layer::L3, Pillar::comm, Section::distributed,
     {"CUDA_VISIBLE_DEVICES against the GPU topology", "CUDA_VISIBLE_DEVICES 与 GPU 拓扑"},
     {{"pass", {"the job's GPUs {gpus} are as close as any {k} GPUs of this machine (worst link {worst})", "作业的 GPU {gpus} 已是本机任意 {k} 张卡中最近的组合（最差链路 {worst}）"}},
      {"unset", {"CUDA_VISIBLE_DEVICES is unset: the job sees all {count} GPUs", "CUDA_VISIBLE_DEVICES 未设置：作业可见全部 {count} 张 GPU"}},
      {"single", {"CUDA_VISIBLE_DEVICES={value} selects one GPU", "CUDA_VISIBLE_DEVICES={value} 只选择了一张 GPU"}},
      {"closer", {"CUDA_VISIBLE_DEVICES={value} spans {worst} ({gpus}) while {best} are connected by at worst {best_worst}: collectives detour through the slower path",
                  "CUDA_VISIBLE_DEVICES={value} 跨越 {worst}（{gpus}），而 {best} 之间最差也只是 {best_worst}：集合通信要绕行更慢的路径"}}},
     {"Run the job on the closer set: {suggest}", "改用更近的 GPU 组合：{suggest}"},
     "nvidia-smi topo -m; plumb topo --group {k}",
     {"field case: restricting a job to 4 physically adjacent GPUs doubled its throughput", "现场案例：把作业限定在 4 张物理相邻的 GPU 上，吞吐翻倍"},
     {"l2.comm.allreduce_slow", "l2.watch.pcie_imbalance"}},
    {"l3.comm.gpu_nic_affinity", Layer::L3, Pillar::comm, Section::distributed,
     {"GPU to NIC affinity", "GPU 与网卡的亲和性"},
     {{"pass", {"{gpu}: closest NIC {nic} at {level}", "{gpu}：最近的网卡 {nic}，距离 {level}"}},
      {"warn", {"{gpu}: the closest NIC ({nic}) is across the CPU interconnect ({level}): its network traffic crosses sockets (no GPUDirect RDMA at full rate)",
                "{gpu}：最近的网卡（{nic}）需跨 CPU 互联（{level}）：其网络流量需跨路（GPUDirect RDMA 无法全速）"}}},
     {"Put a NIC on each socket/PCIe switch that holds GPUs, or let NCCL route through a nearby GPU (PXN, NCCL 2.12+)",
      "在每一路装有 GPU 的 CPU/PCIe 交换机下配置网卡，或让 NCCL 经近端 GPU 转发（PXN，NCCL 2.12+）"},
     "nvidia-smi topo -m",
     {},
     {"l2.comm.allreduce_slow", "l2.watch.pcie_imbalance"}},
    {"l3.comm.topo_file", Layer::L3, Pillar::comm, Section::distributed,
     {"NCCL_TOPO_FILE is valid for this machine", "NCCL_TOPO_FILE 与本机相符"},
     {{"pass", {"{path} parses and its GPU/NIC bus ids match this machine", "{path} 可解析，GPU/网卡总线号与本机一致"}},
      {"unset", {"NCCL_TOPO_FILE is unset: NCCL detects the topology from sysfs and NVML", "NCCL_TOPO_FILE 未设置：NCCL 从 sysfs 与 NVML 自动探测拓扑"}},
      {"unreadable", {"NCCL_TOPO_FILE={path} is unusable: {why}", "NCCL_TOPO_FILE={path} 不可用：{why}"}},
      {"not_compared", {"{path} parses; this machine's PCI tree is unknown, so its bus ids were not compared", "{path} 可解析；本机 PCI 树未知，未比对总线号"}},
      {"mismatch", {"{path} does not describe this machine: bus ids absent here: {absent}; GPUs here missing from the file: {unlisted} — NCCL builds rings from a wrong picture (typical symptom: unbalanced bandwidth across GPUs)",
                    "{path} 描述的不是本机：文件中有而本机没有的总线号：{absent}；本机有而文件缺少的 GPU：{unlisted}——NCCL 会依据错误的拓扑组环（典型症状：GPU 间带宽不均）"}}},
     {"Regenerate the file on this machine type (`plumb topo --nccl-xml FILE`, or NCCL_TOPO_DUMP_FILE from a good run) or unset NCCL_TOPO_FILE on bare metal",
      "在同型机器上重新生成（`plumb topo --nccl-xml FILE`，或良好运行时的 NCCL_TOPO_DUMP_FILE），裸机上可直接取消 NCCL_TOPO_FILE"},
     "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=GRAPH all_reduce_perf -b 1G -e 1G -g 1 2>&1 | grep -i topo",
     {},
     {"l2.comm.allreduce_slow", "l2.watch.pcie_imbalance", "l2.bench.allreduce"}},
    {"l3.comm.pcie_link_width", Layer::L3, Pillar::comm, Section::distributed,
     {"PCIe lanes of NICs (and of GPUs NVML cannot read)", "网卡（及 NVML 无法读取的 GPU）的 PCIe 通道数"},
     {{"pass", {"{dev} {bus}: x{cur} of x{max}", "{dev} {bus}：x{cur}（最大 x{max}）"}},
      {"warn", {"{dev} {bus} runs at x{cur} of x{max} lanes: a riser, slot or seating fault halves its bandwidth",
                "{dev} {bus} 只以 x{cur} 运行（最大 x{max}）：转接卡、插槽或接触问题使带宽减半"}}},
     {"Reseat the card or move it to a full-width slot; check the riser", "重新插拔或换到全宽插槽；检查转接卡"},
     "lspci -vv -s {bus} | grep -E 'LnkCap|LnkSta'",
     {},
     {"l2.comm.allreduce_slow", "l2.bench.h2d"}},
};
});
  t.add_rule({"l3.comm.visible_devices_span", {"collect.topology", "collect.nccl_env"}, judge_visible});
  t.add_rule({"l3.comm.gpu_nic_affinity", {"collect.topology"}, judge_nic_affinity});
  t.add_rule({"l3.comm.topo_file", {"collect.nccl_env", "collect.topology"}, judge_topo_file});
  t.add_rule({"l3.comm.pcie_link_width", {"collect.topology"}, judge_link_width});
}

}  // namespace plumb
