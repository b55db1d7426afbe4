// Fleet analysis: snapshots reduced to what a fleet compares, the consistency table, grouping of
// the nodes' findings and the fleet facts (mismatches, metrics, line rate).
#include "analyze/fleet.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>

#include "core/json.h"
#include "core/knowledge/env_vars.h"
#include "core/snapshot.h"
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

// A member of an object, if there is one.
const json* member(const json& e, std::string_view key) {
  if (!e.is_object()) return nullptr;
  auto it = e.find(std::string(key));
  return it == e.end() ? nullptr : &*it;
}

std::string string_or(const json& e, std::string_view key, std::string fallback = {}) {
  const json* m = member(e, key);
  return m != nullptr && m->is_string() ? m->get<std::string>() : fallback;
}

// A Fact in JSON: {"value": ...} or {"missing": "why"}, with an optional "source".
bool fact_object(const json& e) {
  if (!e.is_object() || e.size() > 3) return false;
  bool shape = false;
  for (const auto& field : e.items()) {
    if (field.key() == "value" || field.key() == "missing") {
      shape = true;
    } else if (field.key() != "source") {
      return false;
    }
  }
  return shape;
}

// A Fact's value; null for a missing Fact. Anything else is its own value.
const json* unwrap(const json& e) { return fact_object(e) ? member(e, "value") : &e; }

std::string number_text(double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";  // 400.0, as the JSON was written
  return s;
}

std::string text_of(const json& e) {
  switch (e.type()) {
    case json::value_t::string: return e.get<std::string>();
    case json::value_t::boolean: return e.get<bool>() ? "true" : "false";
    case json::value_t::number_integer: return std::to_string(e.get<std::int64_t>());
    case json::value_t::number_unsigned: return std::to_string(e.get<std::uint64_t>());
    case json::value_t::number_float: return number_text(e.get<double>());
    case json::value_t::null: return "n/a";
    default: return dump_text(e);
  }
}

std::string transformed(const json& e, const std::string& transform) {
  if (transform == "gib" && e.is_number()) {
    double gib = e.get<double>() / static_cast<double>(1ull << 30);
    return fmt_num(std::round(gib), 0) + " GiB";
  }
  return text_of(e);
}

// Walks `segs` from `i`; leaves add their text to `out`. A missing Fact adds "n/a".
void walk(const json& e, const std::vector<std::string_view>& segs, std::size_t i, const std::string& transform,
          std::set<std::string>& out) {
  const json* cur = unwrap(e);
  if (cur == nullptr) {
    out.insert("n/a");
    return;
  }
  if (i == segs.size()) {
    if (transform == "count") {
      if (cur->is_array()) out.insert(std::to_string(cur->size()));
      return;
    }
    if (cur->is_array()) {
      for (const json& x : *cur) {
        if (x.is_primitive()) out.insert(transformed(x, transform));
      }
      if (cur->empty()) out.insert("(none)");
      return;
    }
    if (cur->is_primitive()) out.insert(transformed(*cur, transform));
    return;
  }
  std::string_view seg = segs[i];
  bool each = seg.size() > 2 && seg.substr(seg.size() - 2) == "[]";
  const json* next = member(*cur, each ? seg.substr(0, seg.size() - 2) : seg);
  if (next == nullptr) return;
  if (!each) {
    walk(*next, segs, i + 1, transform, out);
    return;
  }
  const json* arr = unwrap(*next);
  if (arr == nullptr) {
    out.insert("n/a");
    return;
  }
  if (!arr->is_array()) return;
  for (const json& x : *arr) walk(x, segs, i + 1, transform, out);
  if (arr->empty()) out.insert("(none)");
}

void read_env(const json& facts, NodeSnapshot& n) {
  std::map<std::string, std::string> env;
  // The probe's view, then the NCCL view, then the target process's environ (later wins).
  for (auto path : {std::pair<const char*, const char*>{"framework", "env"}, {"comm", "env"}, {"host", "process"}}) {
    const json* area = member(facts, path.first);
    const json* f = area != nullptr ? member(*area, path.second) : nullptr;
    if (f != nullptr && std::string_view(path.second) == "process") f = member(*f, "environ");
    const json* v = f != nullptr ? member(*f, "value") : nullptr;
    if (v == nullptr || !v->is_object()) continue;
    n.env_known = true;
    for (const auto& field : v->items()) {
      if (field.value().is_string() && relevant_env_var(field.key())) env[field.key()] = field.value().get<std::string>();
    }
  }
  for (const auto& [k, v] : env) n.values["env." + k] = v;
}

void read_metrics(const json& facts, NodeSnapshot& n) {
  const json* bench = member(facts, "bench");
  const json* results = bench != nullptr ? member(*bench, "results") : nullptr;
  if (results == nullptr || !results->is_array()) return;
  for (const json& r : *results) {
    if (string_or(r, "status") != "ok") continue;
    const json* metrics = member(r, "metrics");
    if (metrics == nullptr || !metrics->is_array()) continue;
    for (const json& m : *metrics) {
      const json* median = member(m, "median");
      if (median == nullptr || !median->is_number()) continue;
      FleetMetric fm;
      fm.name = string_or(m, "name");
      fm.unit = string_or(m, "unit");
      const json* h = member(m, "higher_is_better");
      fm.higher_is_better = h == nullptr || !h->is_boolean() || h->get<bool>();
      if (fm.name.empty()) continue;
      fm.samples.push_back({"", median->get<double>()});
      n.metrics.push_back(std::move(fm));
    }
  }
}

// The node's fastest active port: IB ports in state ACTIVE, Ethernet interfaces that are up.
void read_line_rate(const json& facts, NodeSnapshot& n) {
  double best_gbit = 0, ib_total = 0, eth_best = 0;
  int ib_ports = 0;
  std::string source, eth_source;
  const json* comm = member(facts, "comm");
  auto ports = [&](const char* key) -> const json* {
    const json* f = comm != nullptr ? member(*comm, key) : nullptr;
    const json* v = f != nullptr ? unwrap(*f) : nullptr;
    return v != nullptr && v->is_array() ? v : nullptr;
  };
  if (const json* ib = ports("ib_ports")) {
    for (const json& p : *ib) {
      const json* rate = member(p, "rate_gbps");
      if (rate == nullptr || !rate->is_number() || string_or(p, "state").find("ACTIVE") == std::string::npos) continue;
      double g = rate->get<double>();
      ib_total += g;
      ++ib_ports;
      if (g > best_gbit) {
        best_gbit = g;
        const json* port = member(p, "port");
        source = "/sys/class/infiniband/" + string_or(p, "device") + "/ports/" + (port != nullptr ? text_of(*port) : "1") + "/rate";
      }
    }
  }
  if (const json* eth = ports("interfaces")) {
    for (const json& i : *eth) {
      const json* sp = member(i, "speed_mbps");
      const json* v = sp != nullptr ? unwrap(*sp) : nullptr;
      if (string_or(i, "operstate") != "up" || v == nullptr || !v->is_number()) continue;
      double g = v->get<double>() / 1000.0;
      if (g > eth_best) {
        eth_best = g;
        eth_source = "/sys/class/net/" + string_or(i, "name") + "/speed";
      }
      if (g > best_gbit) {
        best_gbit = g;
        source = eth_source;
      }
    }
  }
  n.line_rate_gbytes_per_s = best_gbit / 8.0;
  n.line_rate_source = source;
  // NCCL spreads its channels over every active IB port; without IB it uses the sockets of one interface.
  if (ib_ports > 0) {
    n.nic_gbit = ib_total;
    n.nic_ports = ib_ports;
    n.nic_source = "/sys/class/infiniband/*/ports/*/rate (" + std::to_string(ib_ports) + " active)";
  } else if (eth_best > 0) {
    n.nic_gbit = eth_best;
    n.nic_ports = 1;
    n.nic_source = eth_source;
  }
}

void count(const Finding& f, NodeSnapshot& n) {
  if (f.status == Status::fail) ++n.node.fail;
  if (f.status == Status::warn) ++n.node.warn;
  if (f.status == Status::skip) ++n.node.skip;
}

// The node's findings: failing and warning ones kept whole, the rest counted. Without a findings
// array the facts are judged again.
void read_findings(const json& doc, NodeSnapshot& n, const JudgeFn& judge) {
  const json* findings = member(doc, "findings");
  if (findings != nullptr && findings->is_array()) {
    for (const json& x : *findings) {
      std::string status = string_or(x, "status");
      if (status == "pass" || status == "info") continue;
      if (status == "skip") {
        ++n.node.skip;
        continue;
      }
      Finding f = x.get<Finding>();  // throws on a malformed finding
      count(f, n);
      n.findings.push_back(std::move(f));
    }
    return;
  }
  if (!judge) return;
  for (auto& f : judge(snapshot_facts(doc).get<Facts>())) {
    count(f, n);
    if (f.status == Status::fail || f.status == Status::warn) n.findings.push_back(std::move(f));
  }
}

}  // namespace

Result<NodeSnapshot> read_node_snapshot(std::string_view text, const std::string& origin, const JudgeFn& judge) {
  auto doc = read_snapshot(text, origin);
  if (!doc) return doc.error();
  const json& facts = snapshot_facts(*doc);
  NodeSnapshot n;
  n.node.origin = origin;
  try {
    if (const json* meta = member(facts, "meta")) {
      n.node.host = string_or(*meta, "hostname");
      n.node.started_at = string_or(*meta, "started_at");
      n.node.tool_version = string_or(*meta, "tool_version");
    }
    if (n.node.host.empty()) n.node.host = base_name(origin);
    for (const auto& row : consistency_table()) {
      if (row.severity == "differs" || starts_with(row.path, "env:")) continue;
      std::vector<std::string_view> segs = split(row.path, '.');
      std::set<std::string> vals;
      walk(facts, segs, 0, row.transform, vals);
      if (vals.empty()) continue;
      std::string joined;
      for (const auto& v : vals) joined += (joined.empty() ? "" : ", ") + v;
      n.values[row.key] = joined;
    }
    read_env(facts, n);
    read_metrics(facts, n);
    read_line_rate(facts, n);
    read_findings(*doc, n, judge);
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
