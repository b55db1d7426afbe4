// The fleet report: read snapshots in parallel, build the fleet facts, judge them, group the
// nodes' own findings and name the nodes to drain.
#include "engine/fleet_report.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "collect/cgroup.h"
#include "core/host_root.h"
#include "core/hostlist.h"
#include "core/iso_time.h"
#include "core/knowledge/links.h"
#include "core/parallel.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/version.h"
#include "store/fleet_store.h"

namespace plumb {

namespace {

namespace fs = std::filesystem;

JudgeFn judge_with(const Config& cfg) {
  return [&cfg](const Facts& f) { return judge(f, cfg.thresholds, Selection{}); };
}

// Snapshots are read on up to 8 of the CPUs plumb may use.
std::size_t reader_threads() { return static_cast<std::size_t>(std::min(usable_cpus(HostRoot("/")), 8)); }

std::string file_stem(const std::string& path) { return fs::path(path).stem().string(); }

}  // namespace

Result<std::vector<NodeSnapshot>> read_fleet_files(const std::vector<std::string>& paths, const Config& cfg) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) return make_error(ErrorKind::absent, p + ": no such file or directory");
    if (fs::is_directory(st)) {
      std::vector<std::string> in_dir;
      for (const auto& e : fs::directory_iterator(p, ec)) {
        if (e.path().extension() == ".json" && e.is_regular_file(ec)) in_dir.push_back(e.path().string());
      }
      if (ec) return make_error(ErrorKind::io, p + ": " + ec.message());
      std::sort(in_dir.begin(), in_dir.end());
      if (in_dir.empty()) return make_error(ErrorKind::absent, p + ": no *.json snapshots in this directory");
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else {
      files.push_back(p);
    }
  }
  if (files.empty()) return make_error(ErrorKind::invalid, "no snapshots named");
  std::vector<NodeSnapshot> nodes(files.size());
  JudgeFn judge_fn = judge_with(cfg);
  parallel_for(files.size(), reader_threads(), [&](std::size_t i) {
    auto text = read_user_file(files[i]);
    if (!text) {
      nodes[i] = missing_node(file_stem(files[i]), files[i], "unreadable snapshot: " + text.error().message);
      return;
    }
    auto n = read_node_snapshot(*text, files[i], judge_fn);
    nodes[i] = n ? std::move(n.value()) : missing_node(file_stem(files[i]), files[i], "unreadable snapshot: " + n.error().message);
  });
  bool any = std::any_of(nodes.begin(), nodes.end(), [](const NodeSnapshot& n) { return n.node.no_result.empty(); });
  if (!any) return make_error(ErrorKind::invalid, nodes.front().node.no_result);
  return nodes;
}

std::vector<NodeSnapshot> read_fleet_inputs(std::vector<FleetInput> inputs, const Config& cfg) {
  std::vector<NodeSnapshot> nodes(inputs.size());
  JudgeFn judge_fn = judge_with(cfg);
  parallel_for(inputs.size(), reader_threads(), [&](std::size_t i) {
    FleetInput& in = inputs[i];
    if (!in.no_result.empty()) {
      nodes[i] = missing_node(in.host, in.origin, in.no_result);
    } else {
      auto n = read_node_snapshot(in.text, in.origin, judge_fn);
      nodes[i] = n ? std::move(n.value()) : missing_node(in.host, in.origin, "unreadable snapshot: " + n.error().message);
    }
    std::string().swap(in.text);
  });
  return nodes;
}

void name_nodes_to_drain(Report& r, const std::vector<FindingGroup>& groups) {
  FleetFacts& f = r.facts.fleet;
  std::map<std::string, std::set<std::string>> why;
  std::set<std::string> hosts;
  for (const auto& n : f.nodes) hosts.insert(n.host);
  int answered = 0;
  for (const auto& n : f.nodes) answered += n.no_result.empty() ? 1 : 0;
  for (const auto& x : r.findings) {
    if (x.status != Status::fail || !starts_with(x.id.substr(3), "fleet.")) continue;
    if (x.id == "l3.fleet.inconsistent") {
      for (const auto& m : f.mismatches) {
        if (m.key != x.subject) continue;
        for (const auto& o : m.odd) why[o.host].insert(x.id + " (" + m.key + ")");
      }
    } else if (hosts.count(x.subject)) {
      why[x.subject].insert(x.id);
    }
  }
  std::set<std::string> fleet_wide;
  for (const auto& g : groups) {
    if (g.first.status != Status::fail) continue;
    if (static_cast<int>(g.hosts.size()) * 2 > answered) {
      fleet_wide.insert(g.first.id);
      continue;
    }
    for (const auto& h : g.hosts) why[h].insert(g.first.id);
  }
  f.drain.clear();
  for (const auto& [host, ids] : why) f.drain.push_back({host, {ids.begin(), ids.end()}});
  std::stable_sort(f.drain.begin(), f.drain.end(), [](const FleetDrain& a, const FleetDrain& b) { return a.ids.size() > b.ids.size(); });
  f.fleet_wide.assign(fleet_wide.begin(), fleet_wide.end());
}

Fact<BusbwCeiling> fleet_nccl_ceiling(const std::vector<NodeSnapshot>& nodes, bool one_host) {
  if (one_host) {
    return Fact<BusbwCeiling>::none("every rank ran on one machine: the all-reduce crossed no network link (plumb bench allreduce "
                                    "judges one machine's GPUs)");
  }
  const NodeSnapshot* slowest = nullptr;
  for (const auto& n : nodes) {
    if (!n.node.no_result.empty()) continue;
    if (n.nic_gbit <= 0) return Fact<BusbwCeiling>::none(n.node.host + ": no active IB port or Ethernet interface with a known rate");
    if (slowest == nullptr || n.nic_gbit < slowest->nic_gbit) slowest = &n;
  }
  if (slowest == nullptr) return Fact<BusbwCeiling>::none("no node sent its network facts");
  BusbwCeiling c = network_ceiling(slowest->nic_gbit, slowest->nic_ports, slowest->node.host + ": " + slowest->nic_source);
  c.path = "network";
  return Fact<BusbwCeiling>::of(c, c.source);
}

Report judge_fleet(std::vector<NodeSnapshot> nodes, const FleetRun& run, const Config& cfg) {
  unique_hosts(nodes);
  Report r;
  std::vector<std::string> names;
  names.reserve(nodes.size());
  for (const auto& n : nodes) names.push_back(n.node.host);
  r.facts.meta.tool_version = plumb_version();
  r.facts.meta.command = "fleet";
  r.facts.meta.started_at = now_iso8601();
  r.facts.meta.hostname = compact_hosts(names);
  r.facts.fleet = build_fleet(nodes);
  // The report's Environment lines describe one machine; a fleet's are in the consistency table.
  const std::string per_node = "a fleet of " + std::to_string(nodes.size()) + " nodes: see the consistency table";
  r.facts.host.os.pretty_name = Fact<std::string>::none(per_node);
  r.facts.host.os.kernel = Fact<std::string>::none(per_node);
  FleetFacts& f = r.facts.fleet;
  f.mode = run.mode;
  f.history = run.history;
  double rate = f.network.line_rate_gbytes_per_s;
  std::string rate_source = f.network.line_rate_source;
  f.network = run.network;
  if (f.network.line_rate_gbytes_per_s <= 0) {
    f.network.line_rate_gbytes_per_s = rate;
    f.network.line_rate_source = rate_source;
  }
  f.nccl = run.nccl.why;
  f.nccl_status = run.nccl.status;
  Selection sel;
  sel.only = {"l3.fleet", "l2.fleet"};
  if (run.nccl.run) {
    // The measured sweep is judged by the same rule as an nccl-tests log.
    NcclTestsRun nr = *run.nccl.run;
    nr.ceiling = fleet_nccl_ceiling(nodes, run.one_host);
    r.facts.comm.nccl_tests.push_back(std::move(nr));
    sel.only.emplace_back("l2.comm.allreduce_slow");
  }
  const Thresholds& th = cfg.thresholds;
  for (const char* k : {"outlier_below_percent", "outlier_z", "outlier_mad_floor_percent", "outlier_min_nodes", "p2p_min_percent",
                        "p2p_median_min_percent"}) {
    f.rule[k] = fmt_num(th.get(std::string("fleet.") + k), 2);
  }
  sel.skip = cfg.skip;
  r.findings = judge(r.facts, th, sel);
  std::vector<FindingGroup> groups = group_findings(nodes);
  int answered = 0;
  for (const auto& n : f.nodes) answered += n.no_result.empty() ? 1 : 0;
  for (const auto& g : groups) {
    Finding x = g.first;
    std::string range = compact_hosts(g.hosts);
    x.subject = range + (g.first.subject == "host" ? "" : " " + g.first.subject);
    x.evidence.insert(x.evidence.begin(), Evidence{"nodes", std::to_string(g.hosts.size()) + " of " + std::to_string(answered) + ": " + range,
                                                    "fleet (evidence below from " + g.hosts.front() + ")"});
    r.findings.push_back(std::move(x));
  }
  name_nodes_to_drain(r, groups);
  return r;
}

Result<Report> judge_fleet_store(const std::string& conninfo, const Config& cfg) {
  auto store = FleetStore::connect(conninfo);
  if (!store) return store.error();
  auto latest = (*store)->latest_snapshots();
  if (!latest) return latest.error();
  if (latest->empty()) return make_error(ErrorKind::absent, "fleet store " + mask_conninfo(conninfo) + ": no node has pushed a result yet");
  const Thresholds& th = cfg.thresholds;
  auto history = (*store)->history(th.get("fleet.repeat_window_days"), th.get("fleet.events_window_days"), th.get("fleet.regression_window_days"));
  if (!history) return history.error();
  std::vector<FleetInput> inputs;
  inputs.reserve(latest->size());
  for (auto& [node, text] : *latest) inputs.push_back({"fleet store: " + node, node, std::move(text), ""});
  FleetRun run;
  run.mode = "store";
  run.network.why = "report of a fleet store (the sweep runs under MPI: plumb fleet)";
  run.nccl.why = "report of a fleet store";
  run.history = std::move(history.value());
  return judge_fleet(read_fleet_inputs(std::move(inputs), cfg), run, cfg);
}

}  // namespace plumb
