// Fleet analysis: snapshots reduced to what a fleet compares, the consistency table, grouping of
// the nodes' findings and the fleet facts (mismatches, metrics, line rate).
#include "analyze/fleet.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>

#include <simdjson.h>

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

using Element = simdjson::dom::element;
using Kind = simdjson::dom::element_type;

// A member of an object, if there is one.
std::optional<Element> member(Element e, std::string_view key) {
  Element out;
  if (e.type() != Kind::OBJECT || e.get_object()[key].get(out) != simdjson::SUCCESS) return std::nullopt;
  return out;
}

std::string string_or(Element e, std::string_view key, std::string fallback = {}) {
  auto m = member(e, key);
  std::string_view v;
  if (m && m->get_string().get(v) == simdjson::SUCCESS) return std::string(v);
  return fallback;
}

// A Fact in JSON: {"value": ...} or {"missing": "why"}, with an optional "source".
bool fact_object(Element e) {
  if (e.type() != Kind::OBJECT) return false;
  bool shape = false;
  std::size_t n = 0;
  for (auto field : e.get_object()) {
    if (++n > 3) return false;
    if (field.key == "value" || field.key == "missing") {
      shape = true;
    } else if (field.key != "source") {
      return false;
    }
  }
  return shape;
}

// A Fact's value; nullopt for a missing Fact. Anything else is its own value.
std::optional<Element> unwrap(Element e) {
  if (!fact_object(e)) return e;
  return member(e, "value");
}

std::string number_text(double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";  // 400.0, as the JSON was written
  return s;
}

std::string text_of(Element e) {
  switch (e.type()) {
    case Kind::STRING: return std::string(e.get_string().value_unsafe());
    case Kind::BOOL: return e.get_bool().value_unsafe() ? "true" : "false";
    case Kind::INT64: return std::to_string(e.get_int64().value_unsafe());
    case Kind::UINT64: return std::to_string(e.get_uint64().value_unsafe());
    case Kind::DOUBLE: return number_text(e.get_double().value_unsafe());
    case Kind::NULL_VALUE: return "n/a";
    default: return simdjson::minify(e);
  }
}

bool is_number(Element e) { return e.type() == Kind::INT64 || e.type() == Kind::UINT64 || e.type() == Kind::DOUBLE; }

double number_of(Element e) {
  double d = 0;
  if (e.get_double().get(d) == simdjson::SUCCESS) return d;
  std::int64_t i = 0;
  if (e.get_int64().get(i) == simdjson::SUCCESS) return static_cast<double>(i);
  std::uint64_t u = 0;
  if (e.get_uint64().get(u) == simdjson::SUCCESS) return static_cast<double>(u);
  return 0;
}

std::string transformed(Element e, const std::string& transform) {
  if (transform == "gib" && is_number(e)) {
    double gib = number_of(e) / static_cast<double>(1ull << 30);
    return fmt_num(std::round(gib), 0) + " GiB";
  }
  return text_of(e);
}

bool is_scalar(Element e) { return e.type() != Kind::OBJECT && e.type() != Kind::ARRAY; }

// Walks `segs` from `i`; leaves add their text to `out`. A missing Fact adds "n/a".
void walk(Element e, const std::vector<std::string_view>& segs, std::size_t i, const std::string& transform,
          std::set<std::string>& out) {
  auto cur = unwrap(e);
  if (!cur) {
    out.insert("n/a");
    return;
  }
  if (i == segs.size()) {
    if (transform == "count") {
      if (cur->type() == Kind::ARRAY) out.insert(std::to_string(cur->get_array().size()));
      return;
    }
    if (cur->type() == Kind::ARRAY) {
      bool empty = true;
      for (Element x : cur->get_array()) {
        empty = false;
        if (is_scalar(x)) out.insert(transformed(x, transform));
      }
      if (empty) out.insert("(none)");
      return;
    }
    if (is_scalar(*cur)) out.insert(transformed(*cur, transform));
    return;
  }
  std::string_view seg = segs[i];
  bool each = seg.size() > 2 && seg.substr(seg.size() - 2) == "[]";
  auto next = member(*cur, each ? seg.substr(0, seg.size() - 2) : seg);
  if (!next) return;
  if (!each) {
    walk(*next, segs, i + 1, transform, out);
    return;
  }
  auto arr = unwrap(*next);
  if (!arr) {
    out.insert("n/a");
    return;
  }
  if (arr->type() != Kind::ARRAY) return;
  bool empty = true;
  for (Element x : arr->get_array()) {
    empty = false;
    walk(x, segs, i + 1, transform, out);
  }
  if (empty) out.insert("(none)");
}

void read_env(Element facts, NodeSnapshot& n) {
  std::map<std::string, std::string> env;
  // The probe's view, then the NCCL view, then the target process's environ (later wins).
  for (auto path : {std::pair<const char*, const char*>{"framework", "env"}, {"comm", "env"}, {"host", "process"}}) {
    auto area = member(facts, path.first);
    auto f = area ? member(*area, path.second) : std::nullopt;
    if (f && std::string_view(path.second) == "process") f = member(*f, "environ");
    auto v = f ? member(*f, "value") : std::nullopt;
    if (!v || v->type() != Kind::OBJECT) continue;
    n.env_known = true;
    for (auto field : v->get_object()) {
      std::string name(field.key);
      std::string_view val;
      if (field.value.get_string().get(val) == simdjson::SUCCESS && relevant_env_var(name)) env[name] = std::string(val);
    }
  }
  for (const auto& [k, v] : env) n.values["env." + k] = v;
}

void read_metrics(Element facts, NodeSnapshot& n) {
  auto bench = member(facts, "bench");
  auto results = bench ? member(*bench, "results") : std::nullopt;
  if (!results || results->type() != Kind::ARRAY) return;
  for (Element r : results->get_array()) {
    if (string_or(r, "status") != "ok") continue;
    auto metrics = member(r, "metrics");
    if (!metrics || metrics->type() != Kind::ARRAY) continue;
    for (Element m : metrics->get_array()) {
      auto median = member(m, "median");
      if (!median || !is_number(*median)) continue;
      FleetMetric fm;
      fm.name = string_or(m, "name");
      fm.unit = string_or(m, "unit");
      bool higher = true;
      auto h = member(m, "higher_is_better");
      if (h && h->get_bool().get(higher) != simdjson::SUCCESS) higher = true;
      fm.higher_is_better = higher;
      if (fm.name.empty()) continue;
      fm.samples.push_back({"", number_of(*median)});
      n.metrics.push_back(std::move(fm));
    }
  }
}

// The node's fastest active port: IB ports in state ACTIVE, Ethernet interfaces that are up.
void read_line_rate(Element facts, NodeSnapshot& n) {
  double best_gbit = 0, ib_total = 0, eth_best = 0;
  int ib_ports = 0;
  std::string source, eth_source;
  auto comm = member(facts, "comm");
  auto ports = [&](const char* key) -> std::optional<Element> {
    auto f = comm ? member(*comm, key) : std::nullopt;
    auto v = f ? unwrap(*f) : std::nullopt;
    if (!v || v->type() != Kind::ARRAY) return std::nullopt;
    return v;
  };
  if (auto ib = ports("ib_ports")) {
    for (Element p : ib->get_array()) {
      auto rate = member(p, "rate_gbps");
      if (!rate || !is_number(*rate) || string_or(p, "state").find("ACTIVE") == std::string::npos) continue;
      double g = number_of(*rate);
      ib_total += g;
      ++ib_ports;
      if (g > best_gbit) {
        best_gbit = g;
        auto port = member(p, "port");
        source = "/sys/class/infiniband/" + string_or(p, "device") + "/ports/" + (port ? text_of(*port) : "1") + "/rate";
      }
    }
  }
  if (auto eth = ports("interfaces")) {
    for (Element i : eth->get_array()) {
      auto sp = member(i, "speed_mbps");
      auto v = sp ? unwrap(*sp) : std::nullopt;
      if (string_or(i, "operstate") != "up" || !v || !is_number(*v)) continue;
      double g = number_of(*v) / 1000.0;
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
// array the facts are judged again (read whole, with the JSON library the Facts types use).
void read_findings(Element doc, std::string_view text, NodeSnapshot& n, const JudgeFn& judge) {
  auto findings = member(doc, "findings");
  if (findings && findings->type() == Kind::ARRAY) {
    for (Element x : findings->get_array()) {
      std::string status = string_or(x, "status");
      if (status == "pass" || status == "info") continue;
      if (status == "skip") {
        ++n.node.skip;
        continue;
      }
      Finding f = json::parse(simdjson::minify(x)).get<Finding>();  // throws on a malformed finding
      count(f, n);
      n.findings.push_back(std::move(f));
    }
    return;
  }
  if (!judge) return;
  auto parsed = parse_outside_json(text);
  if (!parsed) throw std::invalid_argument(parsed.error().message);
  const json& whole = *parsed;
  const json& facts = whole.contains("facts") ? whole["facts"] : whole;
  for (auto& f : judge(facts.get<Facts>())) {
    count(f, n);
    if (f.status == Status::fail || f.status == Status::warn) n.findings.push_back(std::move(f));
  }
}

}  // namespace

Result<NodeSnapshot> read_node_snapshot(std::string_view text, const std::string& origin, const JudgeFn& judge) {
  // simdjson: the library parses at gigabytes per second whatever the build type of plumb, so a
  // thousand snapshots take well under a second.
  thread_local simdjson::dom::parser parser;
  Element doc;
  if (parser.parse(text.data(), text.size()).get(doc) != simdjson::SUCCESS) return make_error(ErrorKind::invalid, origin + ": not JSON");
  std::optional<Element> facts = member(doc, "facts");
  if (!facts && member(doc, "meta")) facts = doc;
  if (!facts || facts->type() != Kind::OBJECT) return make_error(ErrorKind::invalid, origin + ": not a plumb snapshot (no facts object)");
  NodeSnapshot n;
  n.node.origin = origin;
  try {
    if (auto meta = member(*facts, "meta")) {
      n.node.host = string_or(*meta, "hostname");
      n.node.started_at = string_or(*meta, "started_at");
      n.node.tool_version = string_or(*meta, "tool_version");
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
    read_findings(doc, text, n, judge);
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
