// Rules of `plumb fleet`: facts that disagree across nodes, bench outliers, nodes that sent no
// result, slow node-to-node links and the multi-node NCCL check. They judge facts.fleet only (the
// per-node findings are each node's own, grouped by the fleet report).
#include <algorithm>

#include "bench/fleet_stats.h"
#include "core/catalog.h"
#include "core/hostlist.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {
namespace {

constexpr const char* kInconsistent = "l3.fleet.inconsistent";
constexpr const char* kOutlier = "l2.fleet.outlier";
constexpr const char* kNoResult = "l3.fleet.no_result";
constexpr const char* kP2p = "l2.fleet.p2p_slow";
constexpr const char* kNccl = "l2.fleet.nccl_allreduce";
constexpr const char* kRepeat = "l3.fleet.repeat_offender";
constexpr const char* kRising = "l3.fleet.events_rising";
constexpr const char* kChange = "l2.fleet.change_regression";
constexpr std::size_t kMaxEvidence = 16;  // nodes listed as evidence per finding; the rest counted

// A finding about the whole fleet (subject "fleet").
Finding fleet_finding(const char* id, Status status, std::string threshold = {}) {
  Finding x;
  x.id = id;
  x.subject = "fleet";
  x.status = status;
  x.threshold = std::move(threshold);
  return x;
}

int answered(const FleetFacts& f) {
  return static_cast<int>(std::count_if(f.nodes.begin(), f.nodes.end(), [](const FleetNode& n) { return n.no_result.empty(); }));
}

std::vector<Finding> inconsistent(const Facts& facts, const Thresholds&) {
  const FleetFacts& f = facts.fleet;
  if (!f.collected) return {};
  int n = answered(f);
  if (n < 2) return {skipped(kInconsistent, "fewer than two nodes sent a snapshot", "fleet")};
  std::vector<Finding> out;
  for (const auto& m : f.mismatches) {
    Finding x;
    x.id = kInconsistent;
    x.subject = m.key;
    x.status = m.severity == "fail" ? Status::fail : Status::warn;
    std::vector<std::string> hosts;
    for (const auto& o : m.odd) hosts.push_back(o.host);
    x.arg("key", m.key)
        .arg("majority", m.majority)
        .arg("majority_nodes", std::to_string(m.majority_nodes))
        .arg("nodes", std::to_string(n))
        .arg("n", std::to_string(m.odd.size()))
        .arg("hosts", compact_hosts(hosts))
        .arg("value", m.odd.front().value);
    for (std::size_t i = 0; i < m.odd.size() && i < kMaxEvidence; ++i) {
      x.add(m.odd[i].host, m.odd[i].value + " (majority: " + m.majority + ")", "fleet: " + m.key);
    }
    if (m.odd.size() > kMaxEvidence) x.add("more", std::to_string(m.odd.size() - kMaxEvidence) + " more nodes", "fleet: " + m.key);
    x.threshold = "equal on every node";
    out.push_back(std::move(x));
  }
  if (out.empty()) {
    out.push_back(fleet_finding(kInconsistent, Status::pass, "equal on every node")
                      .arg("nodes", std::to_string(n))
                      .arg("keys", std::to_string(f.compared_keys)));
  }
  return out;
}

OutlierRule outlier_rule(const Thresholds& th) {
  OutlierRule r;
  r.below_fraction = th.get("fleet.outlier_below_percent") / 100.0;
  r.z = th.get("fleet.outlier_z");
  r.mad_floor_fraction = th.get("fleet.outlier_mad_floor_percent") / 100.0;
  r.min_nodes = static_cast<int>(th.get("fleet.outlier_min_nodes"));
  return r;
}

std::vector<Finding> outliers(const Facts& facts, const Thresholds& th) {
  const FleetFacts& f = facts.fleet;
  if (!f.collected) return {};
  if (f.metrics.empty()) {
    return {skipped(kOutlier, "no bench results in the snapshots (run the nodes' check with --bench quick)", "fleet")};
  }
  OutlierRule rule = outlier_rule(th);
  std::string threshold = "below the median by > " + fmt_num(rule.below_fraction * 100, 1) + " % and modified z < " +
                          fmt_num(rule.z, 1) + " (MAD >= " + fmt_num(rule.mad_floor_fraction * 100, 1) + " % of the median)";
  std::vector<Finding> out;
  int judged = 0;
  for (const auto& m : f.metrics) {
    if (static_cast<int>(m.samples.size()) < rule.min_nodes) continue;
    ++judged;
    for (const auto& o : find_outliers(m, rule)) {
      Finding x;
      x.id = kOutlier;
      x.subject = o.host;
      x.status = Status::fail;
      x.arg("host", o.host)
          .arg("metric", m.name)
          .arg("value", fmt_num(o.value, 2))
          .arg("unit", m.unit)
          .arg("median", fmt_num(o.median, 2))
          .arg("pct", fmt_num(-o.deviation * 100, 1))
          .arg("z", fmt_num(o.z, 1))
          .arg("nodes", std::to_string(m.samples.size()));
      x.add(m.name, fmt_num(o.value, 2) + " " + m.unit + " (fleet median " + fmt_num(o.median, 2) + ", z " + fmt_num(o.z, 1) + ")",
            "bench: " + m.name + " on " + o.host);
      x.threshold = threshold;
      out.push_back(std::move(x));
    }
  }
  if (judged == 0) {
    Finding i = fleet_finding(kOutlier, Status::info, threshold);
    i.variant = "few";
    return {i.arg("min", std::to_string(rule.min_nodes))};
  }
  if (out.empty()) out.push_back(fleet_finding(kOutlier, Status::pass, threshold).arg("metrics", std::to_string(judged)));
  return out;
}

std::vector<Finding> no_result(const Facts& facts, const Thresholds&) {
  const FleetFacts& f = facts.fleet;
  if (!f.collected) return {};
  std::vector<Finding> out;
  for (const auto& n : f.nodes) {
    if (n.no_result.empty()) continue;
    Finding x;
    x.id = kNoResult;
    x.subject = n.host;
    x.status = Status::fail;
    x.arg("host", n.host).arg("why", n.no_result);
    x.add("result", n.no_result, n.origin);
    x.threshold = "a snapshot from every node";
    out.push_back(std::move(x));
  }
  if (out.empty()) out.push_back(fleet_finding(kNoResult, Status::pass).arg("nodes", std::to_string(f.nodes.size())));
  return out;
}

std::vector<Finding> p2p(const Facts& facts, const Thresholds& th) {
  const FleetFacts& f = facts.fleet;
  if (!f.collected) return {};
  const FleetNetwork& net = f.network;
  if (net.status != "measured") {
    return {skipped(kP2p, net.why.empty() ? std::string("no node-to-node sweep in this run") : net.why, "fleet")};
  }
  bool line = net.line_rate_gbytes_per_s > 0 && !net.loopback;
  double fraction = th.get(line ? "fleet.p2p_min_percent" : "fleet.p2p_median_min_percent") / 100.0;
  SweepVerdict v = judge_sweep(net, fraction);
  std::string ref = fmt_num(v.reference, 2);
  std::string threshold = ">= " + fmt_num(fraction * 100, 0) + " % of " + (line ? "the line rate " : "the median pair ") + ref + " GB/s";
  std::string mode = net.loopback ? "loopback" : (line ? "line" : "median");
  std::vector<Finding> out;
  auto base = [&](Finding& x) {
    x.id = kP2p;
    x.arg("reference", ref).arg("mode", mode).arg("pct", fmt_num(fraction * 100, 0));
    x.threshold = threshold;
  };
  for (const auto& host : v.bad_hosts) {
    Finding x;
    base(x);
    x.subject = host;
    x.status = Status::fail;
    x.variant = net.loopback ? "fail_loopback" : "fail";
    x.arg("host", host);
    for (const auto& p : net.pairs) {
      if (p.a != host && p.b != host) continue;
      x.add(p.a + " -> " + p.b + " (pass " + std::to_string(p.pass) + ")",
            p.error.empty() ? fmt_num(p.gbytes_per_s, 2) + " GB/s, " + fmt_num(p.latency_us, 1) + " us" : p.error, "MPI point-to-point");
    }
    out.push_back(std::move(x));
  }
  for (const auto& pair : v.unresolved_pairs) {
    Finding x;
    base(x);
    x.subject = pair;
    x.status = Status::warn;
    x.variant = "unresolved";
    x.arg("pair", pair);
    out.push_back(std::move(x));
  }
  if (out.empty()) {
    Finding p;
    base(p);
    p.subject = "fleet";
    p.status = Status::pass;
    p.variant = net.loopback ? "pass_loopback" : "pass";
    p.arg("pairs", std::to_string(net.pairs.size()));
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<Finding> judge_nccl(const Facts& facts, const Thresholds&) {
  const FleetFacts& f = facts.fleet;
  if (!f.collected) return {};
  std::string why = f.nccl.empty() ? std::string("not run") : f.nccl;
  if (f.nccl_status == "measured") {
    Finding x = fleet_finding(kNccl, Status::pass);
    x.arg("what", why);
    x.add("multi-node NCCL all-reduce", why, "plumb fleet (ncclCommInitRank over an MPI-broadcast unique id)");
    return {x};
  }
  if (f.nccl_status == "failed") {
    Finding x = fleet_finding(kNccl, Status::fail, "every rank joins the communicator and completes the sweep");
    x.variant = "fail";
    x.arg("why", why);
    x.add("ranks that did not complete", why, "plumb fleet (each node's NCCL child process)");
    return {x};
  }
  return {skipped(kNccl, why, "fleet")};
}

// The rules over time judge facts.fleet.history, read from a fleet store (plumb fleet report
// --store); a report of snapshot files has none and gets none of these findings.
std::vector<Finding> repeat_offenders(const Facts& facts, const Thresholds& th) {
  const FleetHistory& h = facts.fleet.history;
  if (!h.collected) return {};
  const int k = static_cast<int>(th.get("fleet.repeat_failures"));
  const std::string days = fmt_num(th.get("fleet.repeat_window_days"), 0);
  const std::string threshold = "fewer than " + std::to_string(k) + " failing cycles in " + days + " days";
  std::vector<Finding> out;
  for (const auto& n : h.nodes) {
    if (n.failed < k) continue;
    Finding x = fleet_finding(kRepeat, Status::fail, threshold);
    x.subject = n.host;
    x.arg("host", n.host).arg("n", std::to_string(n.failed)).arg("days", days);
    x.add("failing cycles", std::to_string(n.failed) + " in " + days + " days", "fleet store: plumb_results");
    out.push_back(std::move(x));
  }
  if (out.empty()) out.push_back(fleet_finding(kRepeat, Status::pass, threshold).arg("k", std::to_string(k)).arg("days", days));
  return out;
}

std::vector<Finding> events_rising(const Facts& facts, const Thresholds& th) {
  const FleetHistory& h = facts.fleet.history;
  if (!h.collected) return {};
  const int min = static_cast<int>(th.get("fleet.events_rising_min"));
  const std::string days = fmt_num(th.get("fleet.events_window_days"), 0);
  const std::string threshold = "no more events in the last " + days + " days than in the " + days + " before (at least " +
                                std::to_string(min) + " to count)";
  std::vector<Finding> out;
  for (const auto& n : h.nodes) {
    if (n.events_recent < min || n.events_recent <= n.events_before) continue;
    Finding x = fleet_finding(kRising, Status::warn, threshold);
    x.subject = n.host;
    x.arg("host", n.host).arg("recent", std::to_string(n.events_recent)).arg("before", std::to_string(n.events_before)).arg("days", days);
    x.add("kernel events", std::to_string(n.events_recent) + " in the last " + days + " days, " + std::to_string(n.events_before) +
                               " in the " + days + " before", "fleet store: plumb_events");
    out.push_back(std::move(x));
  }
  if (out.empty()) out.push_back(fleet_finding(kRising, Status::pass, threshold).arg("days", days));
  return out;
}

std::vector<Finding> change_regression(const Facts& facts, const Thresholds& th) {
  const FleetHistory& h = facts.fleet.history;
  if (!h.collected) return {};
  const double pct = th.get("fleet.regression_percent");
  const std::string days = fmt_num(th.get("fleet.regression_window_days"), 0);
  const std::string threshold = "a node whose kernel or driver changed is not " + fmt_num(pct, 0) +
                                " % slower while the nodes without a change are not";
  std::vector<Finding> out;
  for (const auto& n : h.nodes) {
    if (n.change.empty() || n.others == 0 || n.change_percent > -pct || n.others_percent <= -pct) continue;
    Finding x = fleet_finding(kChange, Status::fail, threshold);
    x.subject = n.host;
    x.arg("host", n.host).arg("change", n.change).arg("metric", n.metric).arg("pct", fmt_num(-n.change_percent, 1));
    x.arg("others", std::to_string(n.others)).arg("others_pct", fmt_num(n.others_percent, 1)).arg("days", days);
    x.add(n.metric, fmt_num(n.change_percent, 1) + " % after " + n.change + "; " + std::to_string(n.others) +
                        " nodes without a change: " + fmt_num(n.others_percent, 1) + " % (median)", "fleet store: plumb_results");
    out.push_back(std::move(x));
  }
  if (out.empty()) out.push_back(fleet_finding(kChange, Status::pass, threshold).arg("days", days));
  return out;
}

CatalogEntry fleet_row(std::string id, Layer l, Pillar p, Text title, std::map<std::string, Text> msgs, Text fix, std::string verify,
                 Text gain = {}, std::vector<std::string> explains = {}) {
  CatalogEntry e;
  e.id = std::move(id);
  e.layer = l;
  e.pillar = p;
  e.section = Section::distributed;
  e.title = std::move(title);
  e.messages = std::move(msgs);
  e.fix = std::move(fix);
  e.verify = std::move(verify);
  e.gain = std::move(gain);
  e.explains = std::move(explains);
  return e;
}


}  // namespace
void rules_fleet_tables(Tables& t) {
  t.add_rule({kInconsistent, {}, inconsistent, "fleet"});
  t.add_rule({kOutlier, {}, outliers, "fleet"});
  t.add_rule({kNoResult, {}, no_result, "fleet"});
  t.add_rule({kP2p, {}, p2p, "fleet"});
  t.add_rule({kNccl, {}, judge_nccl, "fleet"});
  t.add_rule({kRepeat, {}, repeat_offenders, "fleet"});
  t.add_rule({kRising, {}, events_rising, "fleet"});
  t.add_rule({kChange, {}, change_regression, "fleet"});
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"fleet.outlier_below_percent", 10, "%",
     {"a node's bench result this far on the bad side of the fleet median (and a robust outlier) fails",
      "节点基准结果比集群中位数差超过该比例（且为稳健离群点）时判为失败"}},
    {"fleet.outlier_z", -3.5, "z",
     {"modified z-score (0.6745 (x - median) / MAD, bad side negative) at or below which a node is a robust outlier",
      "修正 z 分数（0.6745 (x - 中位数) / MAD，差的一侧为负）低于该值即为稳健离群点"}},
    {"fleet.outlier_mad_floor_percent", 1, "%",
     {"the MAD is floored at this share of the median, so a fleet of near-identical nodes does not flag noise",
      "MAD 下限为中位数的该比例，避免几乎一致的集群把噪声判为离群"}},
    {"fleet.outlier_min_nodes", 5, "count",
     {"fewer nodes than this: no statistical outliers, only each node's own absolute floors",
      "节点数少于该值时不做统计离群判断，只用各节点自身的绝对下限"}},
    {"fleet.p2p_min_percent", 80, "%",
     {"a node-to-node pair below this share of the NIC line rate is slow", "节点间点对点带宽低于网卡线速的该比例即为慢"}},
    {"fleet.p2p_median_min_percent", 50, "%",
     {"without a known line rate (or on loopback): a pair below this share of the median pair is slow",
      "线速未知（或在回环上）时：低于所有节点对带宽中位数该比例的节点对即为慢"}},
    {"fleet.repeat_failures", 3, "count",
     {"fleet store: a node with this many failing cycles in the repeat window is a repeat offender",
      "集群存储：在重复窗口内失败次数达到该值的节点为屡次失败节点"}},
    {"fleet.repeat_window_days", 7, "days",
     {"fleet store: the window the failing cycles are counted in", "集群存储：统计失败次数的时间窗口"}},
    {"fleet.events_window_days", 7, "days",
     {"fleet store: a node's kernel events in this last window are compared with the window before it",
      "集群存储：节点在最近该窗口内的内核事件数与前一个同长窗口比较"}},
    {"fleet.events_rising_min", 3, "count",
     {"fleet store: fewer events than this in the recent window never count as rising",
      "集群存储：最近窗口内事件少于该值时不视为上升"}},
    {"fleet.regression_window_days", 7, "days",
     {"fleet store: the first and last benchmark of this window are compared, with the kernel and driver each ran on",
      "集群存储：比较该窗口内第一次与最后一次基准结果及各自的内核与驱动"}},
    {"fleet.regression_percent", 10, "%",
     {"fleet store: a node whose kernel or driver changed and whose benchmark got this much slower, while the nodes without a change did not, fails",
      "集群存储：内核或驱动发生变化且基准结果变慢超过该比例（而未变化的节点没有）的节点判为失败"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    fleet_row(kInconsistent, Layer::L3, Pillar::platform, {"Facts that must agree across the fleet", "集群内必须一致的事实"},
        {{"pass", {"all {nodes} nodes agree on the {keys} compared facts", "全部 {nodes} 个节点在所比较的 {keys} 项事实上一致"}},
         {"fail", {"{key}: {n} of {nodes} nodes differ from the majority value {majority} ({majority_nodes} nodes): {hosts} (e.g. {value})",
                   "{key}：{nodes} 个节点中有 {n} 个与多数值 {majority}（{majority_nodes} 个节点）不同：{hosts}（例如 {value}）"}},
         {"warn", {"{key}: {n} of {nodes} nodes differ from the majority value {majority} ({majority_nodes} nodes): {hosts} (e.g. {value})",
                   "{key}：{nodes} 个节点中有 {n} 个与多数值 {majority}（{majority_nodes} 个节点）不同：{hosts}（例如 {value}）"}}},
        {"Bring {hosts} to the fleet's {key} ({majority}) or drain them until they match; one node with another driver, "
         "kernel, governor or library version slows or hangs every job that spans it.",
         "将 {hosts} 的 {key} 调整为集群一致的值（{majority}），或在一致之前将其下线（drain）；一个驱动、内核、调频策略或库版本不同的节点会拖慢或卡住跨越它的所有作业。"},
        "plumb fleet report <snapshots>",
        {"every node behaves like the others: no single node holds back the collective", "每个节点行为一致：没有单个节点拖慢集合通信"},
        {kOutlier, kP2p}),
    fleet_row(kOutlier, Layer::L2, Pillar::compute, {"Bench results against the fleet (robust outliers)", "基准结果与集群对比（稳健离群点）"},
        {{"pass", {"no node is a robust outlier on the {metrics} metrics measured by enough nodes", "在有足够节点测量的 {metrics} 项指标上没有离群节点"}},
         {"fail", {"{host}: {metric} {value} {unit} is {pct} % worse than the fleet median {median} {unit} (modified z {z}, {nodes} nodes)",
                   "{host}：{metric} 为 {value} {unit}，比集群中位数 {median} {unit} 差 {pct} %（修正 z 分数 {z}，{nodes} 个节点）"}},
         {"few", {"fewer than {min} nodes measured each metric: no statistical outliers, only each node's own absolute floors apply",
                  "每项指标的测量节点少于 {min} 个：不做统计离群判断，仅适用各节点自身的绝对下限"}}},
        {"Inspect {host}: compare its governor, memory population (DIMMs), NUMA placement, throttling and background load "
         "with a good node (`plumb diff`); drain it until it measures like the rest.",
         "检查 {host}：将其调频策略、内存插槽配置（DIMM）、NUMA 绑定、降频与后台负载与正常节点对比（`plumb diff`）；在其测量结果与其他节点一致之前将其下线。"},
        "plumb check --bench quick",
        {"the job runs at the speed of the fleet, not of its slowest node", "作业以集群速度运行，而不是最慢节点的速度"}),
    fleet_row(kNoResult, Layer::L3, Pillar::platform, {"Nodes that sent no result", "未返回结果的节点"},
        {{"pass", {"every node sent a snapshot ({nodes})", "每个节点都返回了快照（{nodes} 个）"}},
         {"fail", {"no result from {host}: {why}", "{host} 没有返回结果：{why}"}}},
        {"Log in to {host} and run `plumb check` there: a check that hangs or crashes points at a stuck driver, a hung "
         "filesystem or a failing node; drain it until the check completes.",
         "登录 {host} 并在其上运行 `plumb check`：检查卡住或崩溃说明驱动卡死、文件系统挂起或节点故障；在检查能正常完成之前将其下线。"},
        "plumb check --timeout 10000"),
    fleet_row(kP2p, Layer::L2, Pillar::comm, {"Node-to-node bandwidth (MPI point-to-point sweep)", "节点间带宽（MPI 点对点扫描）"},
        {{"pass", {"{pairs} node pairs reach at least {pct} % of the reference {reference} GB/s", "{pairs} 个节点对均达到参考值 {reference} GB/s 的 {pct} % 以上"}},
         {"pass_loopback",
          {"{pairs} node pairs measured over loopback reach at least {pct} % of the median pair {reference} GB/s (loopback measures MPI's mechanics, not a NIC)",
           "在回环上测量的 {pairs} 个节点对均达到中位数 {reference} GB/s 的 {pct} % 以上（回环只检验 MPI 机制，不测网卡）"}},
         {"fail", {"{host} is the slow end: its pairs with known-good nodes stay below {pct} % of the reference {reference} GB/s",
                   "{host} 是慢的一端：它与正常节点组成的节点对仍低于参考值 {reference} GB/s 的 {pct} %"}},
         {"fail_loopback",
          {"{host} is the slow end: its pairs with known-good ranks stay below {pct} % of the median pair {reference} GB/s (measured over loopback: MPI's mechanics, not a NIC)",
           "{host} 是慢的一端：它与正常 rank 组成的节点对仍低于中位数 {reference} GB/s 的 {pct} %（在回环上测量：只检验 MPI 机制，不测网卡）"}},
         {"unresolved", {"{pair} is slow, but neither end is slow with a known-good node (the link or switch port between them, or an intermittent fault)",
                         "{pair} 之间慢，但两端与正常节点配对时都不慢（可能是二者之间的链路或交换机端口，或间歇性故障）"}}},
        {"Check the NIC of {host}: link rate and width (`ibstat`, `ethtool`), errors and the cable/switch port; "
         "drain it until a pair with a good node reaches the line rate.",
         "检查 {host} 的网卡：链路速率与宽度（`ibstat`、`ethtool`）、错误计数以及线缆/交换机端口；在其与正常节点配对能达到线速之前将其下线。"},
        "mpirun --map-by ppr:1:node plumb fleet",
        {"collectives run at the line rate instead of the slowest link's", "集合通信按线速运行，而不是最慢链路的速度"}),
    fleet_row(kNccl, Layer::L2, Pillar::comm, {"Multi-node NCCL all-reduce", "多节点 NCCL all-reduce"},
        {{"pass", {"one NCCL communicator over {what} completed the all-reduce sweep (its bus bandwidth is judged by l2.comm.allreduce_slow)",
                   "{what} 组成一个 NCCL 通信器并完成了 all-reduce 扫描（总线带宽由 l2.comm.allreduce_slow 判定）"}},
         {"fail", {"the multi-node all-reduce did not complete: {why}", "多节点 all-reduce 未能完成：{why}"}}},
        {"Rerun on the nodes named with NCCL_DEBUG=INFO and read where it stops: the bootstrap interface (NCCL_SOCKET_IFNAME), "
         "the IB devices (NCCL_IB_HCA, `ibstat`), a firewall between nodes, or a GPU or NIC that is down; drain the node until "
         "the all-reduce completes.",
         "在所列节点上设置 NCCL_DEBUG=INFO 重新运行并查看停在哪一步：引导网卡（NCCL_SOCKET_IFNAME）、IB 设备（NCCL_IB_HCA、`ibstat`）、"
         "节点间防火墙，或掉线的 GPU、网卡；在 all-reduce 能完成之前将该节点下线。"},
        "mpirun --map-by ppr:1:node plumb fleet",
        {"collectives start and run on every node", "集合通信能在每个节点上启动并运行"},
        {"l2.comm.allreduce_slow"}),
    fleet_row(kRepeat, Layer::L3, Pillar::platform, {"Nodes that fail again and again (fleet store)", "屡次失败的节点（集群存储）"},
        {{"pass", {"no node had {k} failing cycles in the last {days} days", "最近 {days} 天内没有节点失败达 {k} 次"}},
         {"fail", {"{host} failed {n} cycles in the last {days} days", "{host} 在最近 {days} 天内有 {n} 次检查失败"}}},
        {"Drain {host} and read its failing findings over time (`plumb events`, `plumb fleet report --store`): a node that "
         "fails again after each fix has a fault the fixes do not reach; send it to hardware inspection.",
         "将 {host} 下线并查看其随时间的失败项（`plumb events`、`plumb fleet report --store`）：每次修复后仍再次失败的节点有修复未触及的故障；送去硬件检查。"},
        "plumb fleet report --store URL --format json"),
    fleet_row(kRising, Layer::L3, Pillar::platform, {"Nodes whose kernel events rise (fleet store)", "内核事件上升的节点（集群存储）"},
        {{"pass", {"no node logged more kernel events in the last {days} days than in the {days} before", "没有节点在最近 {days} 天内的内核事件多于之前 {days} 天"}},
         {"warn", {"{host}: {recent} kernel events in the last {days} days, {before} in the {days} before", "{host}：最近 {days} 天 {recent} 个内核事件，之前 {days} 天 {before} 个"}}},
        {"Read the events of {host} (`plumb events --since 168h`): Xids, ECC, AER or link flaps that grow week on week "
         "precede a failure; plan its maintenance before jobs fail on it.",
         "查看 {host} 的事件（`plumb events --since 168h`）：逐周增多的 Xid、ECC、AER 或链路抖动往往先于故障；在作业因其失败之前安排维护。"},
        "plumb events --since 168h"),
    fleet_row(kChange, Layer::L2, Pillar::compute, {"A kernel or driver change with a benchmark regression (fleet store)", "内核或驱动变更伴随基准退化（集群存储）"},
        {{"pass", {"no node whose kernel or driver changed in the last {days} days got slower than the nodes without a change",
                   "最近 {days} 天内内核或驱动有变化的节点没有比未变化的节点更慢"}},
         {"fail", {"{host}: {metric} {pct} % slower after {change} (the {others} nodes without a change: {others_pct} %)",
                   "{host}：{change} 之后 {metric} 慢了 {pct} %（{others} 个未变化的节点：{others_pct} %）"}}},
        {"Roll {host} back to the previous kernel or driver, or hold the rollout: the change, not the workload, made it "
         "slower, since the nodes without it did not slow down; compare with `plumb diff` against a node without the change.",
         "将 {host} 回退到之前的内核或驱动，或暂停推广：没有该变更的节点没有变慢，说明变慢是变更而非负载造成的；用 `plumb diff` 与未变更的节点对比。"},
        "plumb check --bench quick",
        {"the rollout keeps the fleet's speed", "推广变更不降低集群速度"}),
};
});
}

}  // namespace plumb
