// The fleet block of the text reports (`plumb fleet`, environment section, first): the verdict
// and the nodes to drain, then the nodes, the findings shared by several nodes, the facts that
// disagree, the bench metrics with the outlier rule, and the node-to-node network (the HTML
// report draws the node x node bandwidth matrix).
#include <map>
#include <set>

#include "bench/fleet_stats.h"
#include "core/hostlist.h"
#include "core/phrases.h"
#include "core/text.h"
#include "report/report.h"
#include "report/table.h"
#include "core/tables.h"

namespace plumb {
namespace {

constexpr std::size_t kMaxNodeRows = 64;   // larger fleets: the node table lists only nodes with problems
constexpr std::size_t kMaxMatrixNodes = 64;

std::string verdict_block(const FleetFacts& f, Lang lang, const std::string& format) {
  std::string out;
  std::vector<std::string> hosts;
  for (const auto& d : f.drain) hosts.push_back(d.host);
  if (f.drain.empty()) {
    out += block_line(tr(lang, "fleet.verdict_none"), format);
  } else {
    out += block_line(fill(tr(lang, "fleet.verdict_drain"), {{"n", std::to_string(f.drain.size())},
                                                              {"nodes", std::to_string(f.nodes.size())},
                                                              {"hosts", compact_hosts(hosts)}}),
                      format);
    if (format == "md") out += "\n";
    TextTable t{{tr(lang, "fleet.col.node"), tr(lang, "fleet.col.why")}};
    for (const auto& d : f.drain) {
      std::string ids;
      for (const auto& id : d.ids) ids += (ids.empty() ? "" : ", ") + id;
      t.push_back({d.host, ids});
    }
    out += render_table(t, format, "    ") + (format == "html" ? "" : "\n");
  }
  if (!f.fleet_wide.empty()) {
    std::string ids;
    for (const auto& id : f.fleet_wide) ids += (ids.empty() ? "" : ", ") + id;
    out += block_line(fill(tr(lang, "fleet.fleet_wide"), {{"ids", ids}}), format);
  }
  return out;
}

std::string nodes_block(const FleetFacts& f, Lang lang, const std::string& format) {
  int answered = 0;
  for (const auto& n : f.nodes) answered += n.no_result.empty() ? 1 : 0;
  std::string out = block_heading(tr(lang, "fleet.nodes"), format);
  out += block_line(fill(tr(lang, "fleet.nodes_line"), {{"n", std::to_string(f.nodes.size())},
                                                        {"answered", std::to_string(answered)},
                                                        {"mode", f.mode}}),
                    format);
  TextTable t{{tr(lang, "fleet.col.node"), tr(lang, "fleet.col.origin"), tr(lang, "status.fail"), tr(lang, "status.warn"),
               tr(lang, "fleet.col.result")}};
  bool all = f.nodes.size() <= kMaxNodeRows;
  for (const auto& n : f.nodes) {
    bool problem = !n.no_result.empty() || n.fail > 0;
    if (!all && !problem) continue;
    t.push_back({n.host, n.origin, std::to_string(n.fail), std::to_string(n.warn),
                 n.no_result.empty() ? tr(lang, "fleet.result_ok") : n.no_result});
  }
  if (t.size() > 1) {
    if (format == "md") out += "\n";
    out += render_table(t, format, "    ") + (format == "html" ? "" : "\n");
  }
  return out;
}

std::string mismatch_block(const FleetFacts& f, Lang lang, const std::string& format) {
  std::string out = block_heading(tr(lang, "fleet.consistency"), format);
  if (f.mismatches.empty()) {
    return out + block_line(fill(tr(lang, "fleet.consistent"), {{"keys", std::to_string(f.compared_keys)}}), format);
  }
  out += block_line(fill(tr(lang, "fleet.inconsistent"), {{"n", std::to_string(f.mismatches.size())},
                                                          {"keys", std::to_string(f.compared_keys)}}),
                    format);
  if (format == "md") out += "\n";
  TextTable t{{tr(lang, "fleet.col.fact"), tr(lang, "fleet.col.majority"), tr(lang, "fleet.col.odd")}};
  for (const auto& m : f.mismatches) {
    // Nodes with the same odd value are one cell: "gpu[03-04]: 5.15".
    std::map<std::string, std::vector<std::string>> by_value;
    for (const auto& o : m.odd) by_value[o.value].push_back(o.host);
    std::string odd;
    for (const auto& [v, hosts] : by_value) odd += (odd.empty() ? "" : "; ") + compact_hosts(hosts) + ": " + v;
    t.push_back({m.key + (m.severity == "fail" ? "" : " (" + tr(lang, "status.warn") + ")"),
                 m.majority + " (" + std::to_string(m.majority_nodes) + ")", odd});
  }
  return out + render_table(t, format, "    ") + (format == "html" ? "" : "\n");
}

std::string metrics_block(const FleetFacts& f, Lang lang, const std::string& format) {
  if (f.metrics.empty()) return {};
  std::string out = block_heading(tr(lang, "fleet.metrics"), format);
  auto rule = [&](const char* k) {
    auto it = f.rule.find(k);
    return it == f.rule.end() ? std::string("?") : it->second;
  };
  out += block_line(fill(tr(lang, "fleet.outlier_rule"), {{"below", rule("outlier_below_percent")},
                                                          {"z", rule("outlier_z")},
                                                          {"floor", rule("outlier_mad_floor_percent")},
                                                          {"min", rule("outlier_min_nodes")}}),
                    format);
  if (format == "md") out += "\n";
  TextTable t{{tr(lang, "fleet.col.metric"), tr(lang, "fleet.col.nodes"), tr(lang, "fleet.col.median"), "MAD",
               tr(lang, "fleet.col.min"), tr(lang, "fleet.col.max")}};
  for (const auto& m : f.metrics) {
    MetricSummary s = summarize(m);
    std::string u = m.unit.empty() ? "" : " " + m.unit;
    t.push_back({m.name, std::to_string(s.nodes), fmt_num(s.median, 2) + u, fmt_num(s.mad, 2), fmt_num(s.min, 2), fmt_num(s.max, 2)});
  }
  return out + render_table(t, format, "    ") + (format == "html" ? "" : "\n");
}

// Cell colour of a pair against the reference: the share of it reached.
const char* shade(double ratio) {
  if (ratio >= 0.8) return "#d8f0d8";
  if (ratio >= 0.5) return "#fff1c2";
  return "#f6c6c6";
}

std::string matrix_html(const FleetNetwork& net, const std::vector<std::string>& hosts, double reference) {
  std::map<std::pair<std::string, std::string>, double> bw;
  for (const auto& p : net.pairs) {
    double v = p.error.empty() ? p.gbytes_per_s : 0;
    auto key = std::make_pair(p.a, p.b);
    auto it = bw.find(key);
    if (it == bw.end() || v < it->second) bw[key] = v;
  }
  std::string out = "<table class=\"fleet-matrix\"><tr><th></th>";
  for (const auto& h : hosts) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr>";
  for (const auto& a : hosts) {
    out += "<tr><th>" + html_escape(a) + "</th>";
    for (const auto& b : hosts) {
      auto it = bw.find({a, b});
      if (it == bw.end()) {
        out += a == b ? "<td style=\"background:#eee\"></td>" : "<td></td>";
        continue;
      }
      double ratio = reference > 0 ? it->second / reference : 1;
      std::string pair = a;
      pair.append(" -> ").append(b);
      out += std::string("<td style=\"background:") + shade(ratio) + "\" title=\"" + html_escape(pair) + "\">" +
             fmt_num(it->second, 2) + "</td>";
    }
    out += "</tr>";
  }
  return out + "</table>\n";
}

std::string network_block(const FleetFacts& f, Lang lang, const std::string& format) {
  const FleetNetwork& net = f.network;
  std::string out = block_heading(tr(lang, "fleet.network"), format);
  if (net.status != "measured") {
    out += block_line(fill(tr(lang, "fleet.network_not_run"), {{"why", net.why.empty() ? std::string("-") : localize(lang, net.why)}}), format);
  } else {
    double ref = sweep_reference(net);
    std::string rate = net.line_rate_gbytes_per_s > 0
                           ? fmt_num(net.line_rate_gbytes_per_s, 2) + " GB/s (" + net.line_rate_source + ")"
                           : tr(lang, "fleet.rate_unknown");
    out += block_line(fill(tr(lang, "fleet.network_line"), {{"pairs", std::to_string(net.pairs.size())},
                                                            {"bytes", human_bytes(static_cast<std::uint64_t>(net.message_bytes))},
                                                            {"iters", std::to_string(net.iterations)},
                                                            {"rate", rate},
                                                            {"reference", fmt_num(ref, 2)}}),
                      format);
    if (net.loopback) out += block_line(tr(lang, "fleet.loopback"), format);
    if (format == "md") out += "\n";
    TextTable t{{tr(lang, "fleet.col.pair"), tr(lang, "fleet.col.pass"), "GB/s", "µs"}};
    for (const auto& p : net.pairs) {
      t.push_back({p.a + " -> " + p.b, std::to_string(p.pass), p.error.empty() ? fmt_num(p.gbytes_per_s, 2) : p.error,
                   p.error.empty() ? fmt_num(p.latency_us, 1) : "-"});
    }
    if (net.pairs.size() <= 4 * kMaxMatrixNodes) out += render_table(t, format, "    ") + (format == "html" ? "" : "\n");
    std::vector<std::string> hosts;
    for (const auto& n : f.nodes) hosts.push_back(n.host);
    if (format == "html" && hosts.size() <= kMaxMatrixNodes) {
      out += block_line(tr(lang, "fleet.matrix"), format) + matrix_html(net, hosts, ref);
    }
  }
  out += block_line(fill(tr(lang, "fleet.nccl"), {{"why", f.nccl.empty() ? std::string("-") : localize(lang, f.nccl)}}), format);
  return out;
}

std::string fleet_block(const Report& r, const RenderOptions& o, const std::string& format) {
  const FleetFacts& f = r.facts.fleet;
  if (!f.collected) return {};
  const Lang lang = o.lang;
  std::string out = block_heading(tr(lang, "fleet.title"), format);
  out += verdict_block(f, lang, format);
  out += nodes_block(f, lang, format);
  out += mismatch_block(f, lang, format);
  out += metrics_block(f, lang, format);
  out += network_block(f, lang, format);
  if (format != "html") out += "\n";
  return out;
}



}  // namespace
void report_fleet_block_tables(Tables& t, ReportTables& r) {
  r.add_report_block(1, {Section::environment, fleet_block});
  t.add_ui([] {
  return std::vector<UiString>{
    {"fleet.title", {"Fleet", "集群"}},
    {"fleet.verdict_none", {"Verdict: no node to drain.", "结论：没有需要下线的节点。"}},
    {"fleet.verdict_drain", {"Verdict: drain {n} of {nodes} nodes: {hosts}", "结论：{nodes} 个节点中有 {n} 个需要下线（drain）：{hosts}"}},
    {"fleet.fleet_wide",
     {"Failing on most nodes (fix fleet-wide, not by draining): {ids}", "在大多数节点上失败（应全集群修复，而非下线节点）：{ids}"}},
    {"fleet.nodes", {"Nodes", "节点"}},
    {"fleet.nodes_line", {"{n} nodes, {answered} sent a snapshot (source: {mode})", "{n} 个节点，{answered} 个返回了快照（来源：{mode}）"}},
    {"fleet.col.node", {"node", "节点"}},
    {"fleet.col.why", {"failing findings", "失败的检查项"}},
    {"fleet.col.origin", {"source", "来源"}},
    {"fleet.col.result", {"result", "结果"}},
    {"fleet.result_ok", {"snapshot", "已返回快照"}},
    {"fleet.consistency", {"Consistency", "一致性"}},
    {"fleet.consistent", {"Every node agrees on the {keys} compared facts.", "所有节点在所比较的 {keys} 项事实上一致。"}},
    {"fleet.inconsistent", {"{n} of {keys} compared facts differ between nodes.", "所比较的 {keys} 项事实中有 {n} 项在节点之间不同。"}},
    {"fleet.col.fact", {"fact", "事实"}},
    {"fleet.col.majority", {"majority (nodes)", "多数值（节点数）"}},
    {"fleet.col.odd", {"differing nodes: value", "不同的节点：值"}},
    {"fleet.metrics", {"Bench metrics across nodes", "各节点基准指标"}},
    {"fleet.outlier_rule",
     {"Outlier rule: a node fails when it is worse than the fleet median by more than {below} % and its modified z-score "
      "(0.6745 (x - median) / MAD, bad side negative) is below {z}, MAD floored at {floor} % of the median; with fewer than "
      "{min} nodes only each node's own absolute floors apply.",
      "离群规则：节点比集群中位数差超过 {below} % 且其修正 z 分数（0.6745 (x - 中位数) / MAD，差的一侧为负）低于 {z} 时判为失败，"
      "MAD 下限为中位数的 {floor} %；节点少于 {min} 个时仅适用各节点自身的绝对下限。"}},
    {"fleet.col.metric", {"metric", "指标"}},
    {"fleet.col.nodes", {"nodes", "节点数"}},
    {"fleet.col.median", {"median", "中位数"}},
    {"fleet.col.min", {"min", "最小"}},
    {"fleet.col.max", {"max", "最大"}},
    {"fleet.network", {"Node-to-node network", "节点间网络"}},
    {"fleet.network_not_run", {"MPI point-to-point sweep not run: {why}", "未运行 MPI 点对点扫描：{why}"}},
    {"fleet.network_line",
     {"{pairs} pairs measured ({bytes} messages x {iters}); line rate {rate}; reference {reference} GB/s",
      "共测量 {pairs} 个节点对（{bytes} 消息 x {iters}）；线速 {rate}；参考值 {reference} GB/s"}},
    {"fleet.rate_unknown", {"unknown", "未知"}},
    {"fleet.loopback",
     {"All ranks run on one host: the sweep went over loopback and measures MPI's mechanics, not a NIC.",
      "所有 rank 在同一主机上：扫描经由回环，只检验 MPI 机制，不测网卡。"}},
    {"fleet.col.pair", {"pair", "节点对"}},
    {"fleet.col.pass", {"pass", "轮次"}},
    {"fleet.matrix", {"Bandwidth matrix (GB/s, row sends to column)", "带宽矩阵（GB/s，行发送到列）"}},
    {"fleet.nccl", {"Multi-node NCCL all-reduce: {why}", "多节点 NCCL all-reduce：{why}"}},
};
});
}

}  // namespace plumb
