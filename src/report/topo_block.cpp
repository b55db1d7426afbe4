// The topology block of the text reports (`plumb topo`, distributed layer): the nvidia-smi-style
// matrix with CPU/NUMA affinity and the NIC legend, the devices with their PCIe links, and the
// closest sets of K GPUs with the CUDA_VISIBLE_DEVICES value of each.
#include <optional>

#include "analyze/topology.h"
#include "core/text.h"
#include "report/report.h"
#include "report/table.h"
#include "report/topo_render.h"
#include "core/tables.h"

namespace plumb {

std::string render_topo_matrix(const Topology& t, const TopoWords& words) {
  std::vector<std::string> labels;
  for (const auto& g : t.gpus) labels.push_back(g.label);
  for (const auto& n : t.nics) labels.push_back(n.label);
  auto pad = [](std::string s, std::size_t w) {
    if (s.size() < w) s.append(w - s.size(), ' ');
    return s + ' ';
  };
  auto rtrim = [](std::string s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  };
  std::string out = pad("", 7);
  for (const auto& l : labels) out += pad(l, 7);
  out += pad(words.cpu_affinity, 15) + words.numa_affinity + "\n";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    std::string line = pad(labels[i], 7);
    for (std::size_t j = 0; j < labels.size(); ++j) {
      std::string c = topo_cell(t, i, j);
      line += pad(c == "X" ? " X" : c, 7);
    }
    bool gpu = i < t.gpus.size();
    std::string cpus = gpu ? t.gpus[i].cpulist : t.nics[i - t.gpus.size()].cpulist;
    std::optional<int> numa = gpu ? t.gpus[i].numa_node : t.nics[i - t.gpus.size()].numa_node;
    line += pad(cpus.empty() ? "N/A" : cpus, 15) + (numa ? std::to_string(*numa) : std::string("N/A"));
    out += rtrim(line) + "\n";
  }
  if (!t.nics.empty()) {
    out += "\n" + words.nic_legend + ":\n\n";
    for (const auto& n : t.nics) out += "  " + n.label + ": " + n.name + "\n";
  }
  return out;
}


namespace {

std::string speed(std::string v) {
  if (v.size() > 5 && v.compare(v.size() - 5, 5, " PCIe") == 0) v.resize(v.size() - 5);
  return v.empty() ? std::string("?") : v;
}
std::string numa(const std::optional<int>& n) { return n ? std::to_string(*n) : std::string("N/A"); }

std::string devices_table(const Topology& t, Lang lang, const std::string& format) {
  TextTable rows{{tr(lang, "topo.col.device"), tr(lang, "topo.col.bus"), tr(lang, "topo.col.name"), tr(lang, "topo.col.link"),
                  "NUMA"}};
  for (const auto& g : t.gpus) {
    std::string link;
    for (const auto& f : t.pci) {
      if (f.bus_id != g.bus_id) continue;
      link = "PCIe " + speed(f.cur_link_speed) + " x" + (f.cur_link_width ? std::to_string(*f.cur_link_width) : "?") + " (max " +
             speed(f.max_link_speed) + " x" + (f.max_link_width ? std::to_string(*f.max_link_width) : "?") + ")";
    }
    rows.push_back({g.label, g.bus_id, g.name.empty() ? "?" : g.name, link, numa(g.numa_node)});
  }
  for (const auto& n : t.nics) rows.push_back({n.label, n.bus_id, n.name + " (" + n.kind + ")", "", numa(n.numa_node)});
  return render_table(rows, format, "    ") + (format == "md" ? "\n" : "");
}

std::string topo_block(const Report& r, const RenderOptions& o, const std::string& format) {
  const TopoFacts& tf = r.facts.topo;
  if (!tf.collected || !r.facts.comm.topology.has()) return {};
  const Topology& t = *r.facts.comm.topology;
  const Lang lang = o.lang;
  std::string out = block_heading(tr(lang, "topo.matrix") + " (" + t.source + ")", format);
  TopoWords w{tr(lang, "topo.cpu_affinity"), tr(lang, "topo.numa_affinity"), tr(lang, "topo.nic_legend")};
  out += block_pre(render_topo_matrix(t, w), format);
  out += block_line(tr(lang, "topo.legend"), format);
  if (!t.pci.empty()) {
    out += block_heading(tr(lang, "topo.devices"), format) + devices_table(t, lang, format);
    if (!t.nvlink_known) out += block_line(fill(tr(lang, "topo.nvlink_unknown"), {{"n", std::to_string(t.nvswitch_count)}}), format);
  }
  if (tf.group_size > 0) {
    out += block_heading(fill(tr(lang, "topo.groups"), {{"k", std::to_string(tf.group_size)}}), format);
    if (tf.groups.empty()) out += block_line(fill(tr(lang, "topo.no_groups"), {{"n", std::to_string(t.gpus.size())}}), format);
    for (const auto& g : tf.groups) {
      out += block_line(g.labels + "  " + tr(lang, "topo.worst") + " " + g.worst + "  " + g.cuda_visible_devices, format);
    }
    if (tf.groups_cut) {
      out += block_line(fill(tr(lang, "topo.groups_cut"), {{"k", std::to_string(tf.group_size)},
                                                           {"n", std::to_string(t.gpus.size())},
                                                           {"sets", std::to_string(kMaxSubsets)},
                                                           {"scores", std::to_string(kMaxPairScores)}}),
                        format);
    }
  } else if (t.gpus.size() > 1) {
    out += block_line(tr(lang, "topo.group_hint"), format);
  }
  if (!tf.nccl_xml.empty()) out += block_line(fill(tr(lang, "topo.nccl_xml"), {{"file", tf.nccl_xml}}), format);
  if (format != "html") out += "\n";
  return out;
}



}  // namespace
void report_topo_block_tables(Tables& t, ReportTables& r) {
  r.add_report_block(50, {Section::distributed, topo_block});
  t.add_ui([] {
  return std::vector<UiString>{
    {"topo.matrix", {"Topology matrix", "拓扑矩阵"}},
    {"topo.cpu_affinity", {"CPU Affinity", "CPU 亲和性"}},
    {"topo.numa_affinity", {"NUMA Affinity", "NUMA 亲和性"}},
    {"topo.nic_legend", {"NIC Legend", "网卡图例"}},
    {"topo.legend", {"Legend: X = self, NV# = bonded set of # NVLinks, PIX = at most one PCIe switch, PXB = several PCIe switches, "
                     "PHB = through a PCIe host bridge (CPU), NODE = between host bridges of one NUMA node, SYS = across NUMA nodes (QPI/UPI)",
                     "图例：X = 自身，NV# = # 条 NVLink 绑定，PIX = 至多一个 PCIe 交换机，PXB = 多个 PCIe 交换机，"
                     "PHB = 经过 PCIe 主桥（CPU），NODE = 同一 NUMA 节点内的主桥之间，SYS = 跨 NUMA 节点（QPI/UPI）"}},
    {"topo.devices", {"Devices", "设备"}},
    {"topo.col.device", {"device", "设备"}},
    {"topo.col.bus", {"bus id", "总线号"}},
    {"topo.col.name", {"name", "名称"}},
    {"topo.col.link", {"PCIe link (current, max)", "PCIe 链路（当前，最大）"}},
    {"topo.nvlink_unknown", {"NVLink counts not read: the GPU layer's NVML link data is not available here ({n} NVSwitch devices on the PCI bus); "
                             "pass a saved `nvidia-smi topo -m` with --from-topo-text to see NV#",
                             "未读取 NVLink 数量：此处没有 GPU 层的 NVML 链路数据（PCI 总线上有 {n} 个 NVSwitch 设备）；"
                             "可用 --from-topo-text 传入保存的 `nvidia-smi topo -m` 查看 NV#"}},
    {"topo.groups", {"Closest sets of {k} GPUs (best worst-pair link first)", "{k} 张 GPU 的最近组合（按最差链路由好到差）"}},
    {"topo.no_groups", {"none: this machine has {n} GPUs", "无：本机只有 {n} 张 GPU"}},
    {"topo.groups_cut",
     {"too many sets of {k} among {n} GPUs to try them all (more than {sets} sets or {scores} pair scores): the search "
      "was cut, these are the best sets it found",
      "{n} 张 GPU 中 {k} 张的组合太多，无法逐一尝试（超过 {sets} 个组合或 {scores} 次两两评分）：搜索已截断，以上为找到的最佳组合"}},
    {"topo.worst", {"worst link", "最差链路"}},
    {"topo.group_hint", {"Use --group K to get the closest sets of K GPUs and their CUDA_VISIBLE_DEVICES value.",
                         "使用 --group K 获取 K 张 GPU 的最近组合及对应的 CUDA_VISIBLE_DEVICES 值。"}},
    {"topo.nccl_xml", {"NCCL topology file written to {file} (NCCL_TOPO_FILE={file})", "NCCL 拓扑文件已写入 {file}（NCCL_TOPO_FILE={file}）"}},
};
});
}

}  // namespace plumb
