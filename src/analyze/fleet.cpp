// Fleet analysis: snapshots reduced to what a fleet compares, the consistency table, grouping of
// the nodes' findings and the fleet facts (mismatches, metrics, line rate).
#include "analyze/fleet.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/json.h"
#include "core/knowledge/env_vars.h"
#include "core/subprocess.h"
#include "core/text.h"

namespace plumb {

const std::vector<ConsistencyRow>& consistency_table() {
  // Facts that must agree across nodes of one job ("fail"), that should ("warn"), and facts that
  // differ by nature ("differs": listed so the choice is visible, never compared). Moment state
  // (free memory, temperatures, clocks, counters) is not read at all.
  static const std::vector<ConsistencyRow> rows{
      {"os.kernel", "fail", "host.os.kernel", ""},
      {"os.release", "warn", "host.os.pretty_name", ""},
      {"gpu.driver", "fail", "gpu.driver_version", ""},
      {"gpu.cuda_driver", "fail", "gpu.cuda_driver_version", ""},
      {"gpu.count", "fail", "gpu.device_count", ""},
      {"gpu.model", "fail", "gpu.devices[].name", ""},
      {"gpu.memory", "fail", "gpu.devices[].memory_total", "gib"},
      {"gpu.vbios", "warn", "gpu.devices[].vbios", ""},
      {"gpu.pcie_width", "fail", "gpu.devices[].pcie.width_current", ""},
      {"gpu.pcie_gen_max", "warn", "gpu.devices[].pcie.gen_max", ""},
      {"gpu.ecc", "warn", "gpu.devices[].ecc.enabled", ""},
      {"gpu.mig", "warn", "gpu.devices[].mig_enabled", ""},
      {"gpu.persistence", "warn", "gpu.devices[].persistence_mode", ""},
      {"gpu.power_limit", "warn", "gpu.devices[].power_limit_mw", ""},
      {"gpu.nvswitches", "fail", "comm.topology.nvswitch_count", ""},
      {"cuda.toolkit", "warn", "gpu.cuda.toolkit_version", ""},
      {"cpu.model", "fail", "host.cpu.model", ""},
      {"cpu.logical", "warn", "host.cpu.logical_cpus", ""},
      {"cpu.sockets", "warn", "host.cpu.sockets", ""},
      {"cpu.numa_nodes", "warn", "host.cpu.numa_nodes", "count"},
      {"cpu.governor", "fail", "host.cpu.governors[].governor", ""},
      {"cpu.scaling_driver", "warn", "host.cpu.scaling_driver", ""},
      {"sysctl.numa_balancing", "warn", "host.cpu.numa_balancing", ""},
      {"memory.total", "fail", "host.memory.mem_total_bytes", "gib"},
      {"memory.swap", "warn", "host.memory.swap_total_bytes", "gib"},
      {"memory.thp", "warn", "host.memory.thp_enabled", ""},
      {"memory.thp_defrag", "warn", "host.memory.thp_defrag", ""},
      {"memory.hugepages", "warn", "host.memory.hugepages_total", ""},
      {"sysctl.swappiness", "warn", "host.memory.swappiness", ""},
      {"sysctl.port_range", "warn", "comm.firewall.port_range", ""},
      {"storage.shm", "warn", "host.storage.shm.size_bytes", "gib"},
      {"storage.scheduler", "warn", "host.storage.block_devices[].scheduler", ""},
      {"cgroup.version", "warn", "host.cgroup.version", ""},
      {"net.ib_ports", "fail", "comm.ib_ports", "count"},
      {"net.ib_rate", "fail", "comm.ib_ports[].rate_gbps", ""},
      {"net.ib_state", "fail", "comm.ib_ports[].state", ""},
      {"net.ib_link_layer", "warn", "comm.ib_ports[].link_layer", ""},
      {"net.if_speed", "warn", "comm.interfaces[].speed_mbps", ""},
      {"net.mtu", "warn", "comm.interfaces[].mtu", ""},
      {"framework.python", "warn", "framework.python.version", ""},
      {"framework.torch", "fail", "framework.torch.version", ""},
      {"framework.torch_cuda", "fail", "framework.torch.cuda", ""},
      {"framework.cudnn", "fail", "framework.torch.cudnn_runtime", ""},
      {"framework.nccl", "fail", "framework.torch.nccl", ""},
      {"framework.tensorflow", "warn", "framework.tensorflow.version", ""},
      {"framework.jax", "warn", "framework.jax.version", ""},
      {"framework.numpy", "warn", "framework.numpy.version", ""},
      {"env.nccl", "fail", "env:NCCL_", ""},
      {"env.other", "warn", "env:", ""},
      {"host.name", "differs", "meta.hostname", ""},
      {"host.uptime", "differs", "host.os.uptime_s", ""},
      {"memory.available", "differs", "host.memory.mem_available_bytes", ""},
      {"gpu.uuid", "differs", "gpu.devices[].uuid", ""},
      {"gpu.temperature", "differs", "gpu.devices[].temperature_c", ""},
  };
  return rows;
}

namespace {

// A Fact in JSON: {"value": ...} or {"missing": "why"}, with an optional "source".
bool fact_object(const json& j) {
  if (!j.is_object() || j.size() > 3) return false;
  bool shape = j.contains("value") || j.contains("missing");
  for (const auto& item : j.items()) {
    if (item.key() != "value" && item.key() != "missing" && item.key() != "source") return false;
  }
  return shape;
}

std::string text_of(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  if (j.is_null()) return "n/a";
  return j.dump();
}

std::string transformed(const json& j, const std::string& transform) {
  if (transform == "gib" && j.is_number()) {
    double gib = j.get<double>() / static_cast<double>(1ull << 30);
    return fmt_num(std::round(gib), 0) + " GiB";
  }
  return text_of(j);
}

// Walks `segs` from `i`; leaves add their text to `out`. A missing Fact adds "n/a".
void walk(const json& j, const std::vector<std::string_view>& segs, std::size_t i, const std::string& transform,
          std::set<std::string>& out) {
  const json* cur = &j;
  if (fact_object(*cur)) {
    if (!cur->contains("value")) {
      out.insert("n/a");
      return;
    }
    cur = &(*cur)["value"];
  }
  if (i == segs.size()) {
    if (transform == "count") {
      if (cur->is_array()) out.insert(std::to_string(cur->size()));
      return;
    }
    if (cur->is_array()) {
      for (const auto& e : *cur) {
        if (e.is_primitive()) out.insert(transformed(e, transform));
      }
      if (cur->empty()) out.insert("(none)");
      return;
    }
    if (cur->is_primitive()) out.insert(transformed(*cur, transform));
    return;
  }
  std::string_view seg = segs[i];
  bool each = seg.size() > 2 && seg.substr(seg.size() - 2) == "[]";
  std::string key(each ? seg.substr(0, seg.size() - 2) : seg);
  if (!cur->is_object() || !cur->contains(key)) return;
  const json& next = (*cur)[key];
  if (!each) {
    walk(next, segs, i + 1, transform, out);
    return;
  }
  const json* arr = &next;
  if (fact_object(*arr)) {
    if (!arr->contains("value")) {
      out.insert("n/a");
      return;
    }
    arr = &(*arr)["value"];
  }
  if (!arr->is_array()) return;
  if (arr->empty()) out.insert("(none)");
  for (const auto& e : *arr) walk(e, segs, i + 1, transform, out);
}

void read_env(const json& facts, NodeSnapshot& n) {
  std::map<std::string, std::string> env;
  // The probe's view, then the NCCL view, then the target process's environ (later wins).
  for (const char* path : {"/framework/env", "/comm/env", "/host/process/environ"}) {
    json::json_pointer ptr(path);
    if (!facts.contains(ptr)) continue;
    const json& f = facts[ptr];
    if (!f.is_object() || !f.contains("value") || !f["value"].is_object()) continue;
    n.env_known = true;
    for (const auto& item : f["value"].items()) {
      if (item.value().is_string() && relevant_env_var(item.key())) env[item.key()] = item.value().get<std::string>();
    }
  }
  for (const auto& [k, v] : env) n.values["env." + k] = v;
}

void read_metrics(const json& facts, NodeSnapshot& n) {
  json::json_pointer ptr("/bench/results");
  if (!facts.contains(ptr) || !facts[ptr].is_array()) return;
  for (const auto& r : facts[ptr]) {
    if (!r.is_object() || r.value("status", std::string()) != "ok" || !r.contains("metrics") || !r["metrics"].is_array()) continue;
    for (const auto& m : r["metrics"]) {
      if (!m.is_object() || !m.contains("median") || !m["median"].is_number()) continue;
      FleetMetric fm;
      fm.name = m.value("name", std::string());
      fm.unit = m.value("unit", std::string());
      fm.higher_is_better = m.value("higher_is_better", true);
      if (fm.name.empty()) continue;
      fm.samples.push_back({"", m["median"].get<double>()});
      n.metrics.push_back(std::move(fm));
    }
  }
}

// The node's fastest active port: IB ports in state ACTIVE, Ethernet interfaces that are up.
void read_line_rate(const json& facts, NodeSnapshot& n) {
  double best_gbit = 0;
  std::string source;
  json::json_pointer ib("/comm/ib_ports/value"), eth("/comm/interfaces/value");
  if (facts.contains(ib) && facts[ib].is_array()) {
    for (const auto& p : facts[ib]) {
      if (!p.is_object() || !p.contains("rate_gbps") || !p["rate_gbps"].is_number()) continue;
      if (p.value("state", std::string()).find("ACTIVE") == std::string::npos) continue;
      double g = p["rate_gbps"].get<double>();
      if (g > best_gbit) {
        best_gbit = g;
        source = "/sys/class/infiniband/" + p.value("device", std::string()) + "/ports/" + text_of(p.value("port", json(1))) + "/rate";
      }
    }
  }
  if (facts.contains(eth) && facts[eth].is_array()) {
    for (const auto& i : facts[eth]) {
      if (!i.is_object() || i.value("operstate", std::string()) != "up" || !i.contains("speed_mbps")) continue;
      const json& sp = i["speed_mbps"];
      const json& v = fact_object(sp) ? sp.value("value", json()) : sp;
      if (!v.is_number()) continue;
      double g = v.get<double>() / 1000.0;
      if (g > best_gbit) {
        best_gbit = g;
        source = "/sys/class/net/" + i.value("name", std::string()) + "/speed";
      }
    }
  }
  n.line_rate_gbytes_per_s = best_gbit / 8.0;
  n.line_rate_source = source;
}

std::string base_name(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

namespace {

// Parts of a snapshot a fleet never reads: dropped while parsing, so a thousand snapshots cost
// little more than lexing them (the kernel log, PCI tree, topology matrices, traces, samples).
const std::set<std::string>& unread_paths() {
  static const std::set<std::string> s{
      "summary",          "facts.meta.collectors",   "facts.host.kmsg",         "facts.host.memory.pressure",
      "facts.host.storage.data_paths", "facts.comm.topology.pci", "facts.comm.topology.pcie", "facts.comm.topology.nvlinks",
      "facts.comm.topology.gpus", "facts.comm.topology.nics", "facts.comm.topo_file", "facts.comm.nccl_tests",
      "facts.gpu.topology", "facts.gpu.nvml_symbols",  "facts.gpu.cuda.copies",   "facts.trace",
      "facts.watch",      "facts.allocator",         "facts.h5",                "facts.topo",
      "facts.diff",       "facts.fleet",             "facts.bench.results.[].rows", "facts.bench.results.[].context",
      "facts.bench.results.[].metrics.[].values"};
  return s;
}

json parse_for_fleet(std::string_view text) {
  std::vector<std::string> keys;  // the key (or "[]") at each depth
  json::parser_callback_t keep = [&keys](int depth, json::parse_event_t event, json& parsed) {
    auto d = static_cast<std::size_t>(depth);
    if (event == json::parse_event_t::array_start) {
      keys.resize(d + 1);
      keys[d] = "[]";
      return true;
    }
    if (event != json::parse_event_t::key || d == 0) return true;
    keys.resize(d);
    keys[d - 1] = parsed.get<std::string>();
    if (d > 6) return true;
    std::string path;
    for (const auto& k : keys) path += (path.empty() ? "" : ".") + k;
    return unread_paths().count(path) == 0;
  };
  return json::parse(text.begin(), text.end(), keep, false);
}

}  // namespace

Result<NodeSnapshot> read_node_snapshot(std::string_view text, const std::string& origin, const JudgeFn& judge) {
  json doc = parse_for_fleet(text);
  // Without saved findings the facts are judged again: they must be whole.
  if (doc.is_object() && !doc.contains("findings") && judge) doc = json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) return make_error(ErrorKind::invalid, origin + ": not JSON");
  if (!doc.is_object()) return make_error(ErrorKind::invalid, origin + ": not a plumb snapshot (no facts object)");
  const json* facts = doc.contains("facts") ? &doc["facts"] : (doc.contains("meta") ? &doc : nullptr);
  if (facts == nullptr || !facts->is_object()) {
    return make_error(ErrorKind::invalid, origin + ": not a plumb snapshot (no facts object)");
  }
  NodeSnapshot n;
  n.node.origin = origin;
  try {
    const json& meta = facts->value("meta", json::object());
    if (meta.is_object()) {
      n.node.host = meta.value("hostname", std::string());
      n.node.started_at = meta.value("started_at", std::string());
      n.node.tool_version = meta.value("tool_version", std::string());
    }
    if (n.node.host.empty()) n.node.host = base_name(origin);
    for (const auto& row : consistency_table()) {
      if (row.severity == "differs" || starts_with(row.path, "env:")) continue;
      std::vector<std::string_view> segs = split(row.path, '.');
      std::set<std::string> vals;
      walk(*facts, segs, 0, row.transform, vals);
      if (vals.empty()) continue;
      std::string joined;
      for (const auto& v : vals) joined += (joined.empty() ? "" : ", ") + v;
      n.values[row.key] = joined;
    }
    read_env(*facts, n);
    read_metrics(*facts, n);
    read_line_rate(*facts, n);
    std::vector<Finding> all;
    if (doc.contains("findings") && doc["findings"].is_array()) {
      all = doc["findings"].get<std::vector<Finding>>();
    } else if (judge) {
      all = judge(facts->get<Facts>());
    }
    for (auto& f : all) {
      if (f.status == Status::fail) ++n.node.fail;
      if (f.status == Status::warn) ++n.node.warn;
      if (f.status == Status::skip) ++n.node.skip;
      if (f.status == Status::fail || f.status == Status::warn) n.findings.push_back(std::move(f));
    }
  } catch (const std::exception& e) {
    return make_error(ErrorKind::invalid, origin + ": not a plumb snapshot (" + first_line(e.what()) + ")");
  }
  for (auto& m : n.metrics) m.samples.front().host = n.node.host;
  return n;
}

NodeSnapshot missing_node(const std::string& host, const std::string& origin, const std::string& why) {
  NodeSnapshot n;
  n.node.host = host;
  n.node.origin = origin;
  n.node.no_result = why;
  return n;
}

void unique_hosts(std::vector<NodeSnapshot>& nodes) {
  std::map<std::string, int> seen;
  for (auto& n : nodes) {
    int k = ++seen[n.node.host];
    if (k > 1) n.node.host += "#" + std::to_string(k);
    for (auto& m : n.metrics) m.samples.front().host = n.node.host;
  }
}

std::vector<FindingGroup> group_findings(const std::vector<NodeSnapshot>& nodes) {
  std::vector<FindingGroup> groups;
  std::map<std::string, std::size_t> index;
  for (const auto& n : nodes) {
    for (const auto& f : n.findings) {
      std::string key = f.id + '\x1f' + status_name(f.status) + '\x1f' + f.variant + '\x1f' + f.subject;
      auto [it, fresh] = index.try_emplace(key, groups.size());
      if (fresh) groups.push_back({f, {}});
      auto& hosts = groups[it->second].hosts;
      if (hosts.empty() || hosts.back() != n.node.host) hosts.push_back(n.node.host);
    }
  }
  std::stable_sort(groups.begin(), groups.end(), [](const FindingGroup& a, const FindingGroup& b) {
    if (a.first.status != b.first.status) return a.first.status < b.first.status;
    return a.hosts.size() > b.hosts.size();
  });
  return groups;
}

namespace {

std::string severity_for(const std::string& key) {
  if (starts_with(key, "env.")) {
    for (const auto& row : consistency_table()) {
      if (!starts_with(row.path, "env:")) continue;
      if (starts_with(key.substr(4), row.path.substr(4))) return row.severity;
    }
    return "warn";
  }
  for (const auto& row : consistency_table()) {
    if (row.key == key) return row.severity;
  }
  return "warn";
}

void add_mismatches(const std::vector<const NodeSnapshot*>& have, FleetFacts& f) {
  std::set<std::string> keys;
  for (const auto* n : have) {
    for (const auto& [k, v] : n->values) keys.insert(k);
  }
  for (const auto& key : keys) {
    bool env = starts_with(key, "env.");
    std::vector<std::string> vals;
    vals.reserve(have.size());
    for (const auto* n : have) {
      auto it = n->values.find(key);
      if (it != n->values.end()) {
        vals.push_back(it->second);
      } else {
        vals.push_back(env ? (n->env_known ? "(unset)" : "n/a") : "(absent)");
      }
    }
    ++f.compared_keys;
    std::map<std::string, int> count;
    for (const auto& v : vals) ++count[v];
    if (count.size() == 1) continue;
    // The majority value; on a tie, the value of the first node that has one of the tied values.
    int best = 0;
    for (const auto& [v, c] : count) best = std::max(best, c);
    std::string majority;
    for (const auto& v : vals) {
      if (count[v] == best) {
        majority = v;
        break;
      }
    }
    FleetMismatch m{key, severity_for(key), majority, best, {}};
    for (std::size_t i = 0; i < have.size(); ++i) {
      if (vals[i] != majority) m.odd.push_back({have[i]->node.host, vals[i]});
    }
    f.mismatches.push_back(std::move(m));
  }
  // Must-be-equal facts first, then by how many nodes differ.
  std::stable_sort(f.mismatches.begin(), f.mismatches.end(), [](const FleetMismatch& a, const FleetMismatch& b) {
    if (a.severity != b.severity) return a.severity == "fail";
    return a.odd.size() > b.odd.size();
  });
}

}  // namespace

FleetFacts build_fleet(const std::vector<NodeSnapshot>& nodes) {
  FleetFacts f;
  f.collected = true;
  std::vector<const NodeSnapshot*> have;
  std::map<std::string, std::size_t> metric_index;
  double line_rate = 0;
  std::string line_source;
  bool rate_known = true;
  for (const auto& n : nodes) {
    f.nodes.push_back(n.node);
    if (!n.node.no_result.empty()) continue;
    have.push_back(&n);
    for (const auto& m : n.metrics) {
      auto [it, fresh] = metric_index.try_emplace(m.name, f.metrics.size());
      if (fresh) {
        f.metrics.push_back({m.name, m.unit, m.higher_is_better, {}});
      }
      f.metrics[it->second].samples.push_back(m.samples.front());
    }
    if (n.line_rate_gbytes_per_s <= 0) {
      rate_known = false;
    } else if (line_rate == 0 || n.line_rate_gbytes_per_s < line_rate) {
      line_rate = n.line_rate_gbytes_per_s;
      line_source = n.node.host + ": " + n.line_rate_source;
    }
  }
  if (have.size() >= 2) add_mismatches(have, f);
  // The sweep is judged against the slowest node's fastest port, and only when every node's is known.
  if (rate_known && line_rate > 0) {
    f.network.line_rate_gbytes_per_s = line_rate;
    f.network.line_rate_source = line_source;
  }
  return f;
}

}  // namespace plumb
