// nccl-tests log parser (formats of NVIDIA/nccl-tests src/common.cu and doc/PERFORMANCE.md; real samples in
// tests/fixtures/comm/nccl-tests/) and the ceiling of the bottleneck link.
#include "analyze/nccl_tests.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "analyze/topology.h"
#include "core/knowledge/links.h"
#include "core/json.h"
#include "core/host_root.h"
#include "core/text.h"

namespace plumb {

namespace {

std::optional<double> num_or_na(std::string_view s) {
  if (s == "N/A") return std::nullopt;
  return parse_double(s);
}

// "#  Rank  0 Group  0 Pid   6899 on ztan-mig-235z device  0 [0000:04:00] NVIDIA H100 80GB HBM3"
struct DeviceLine {
  int rank = -1;
  int device = -1;
  std::string host, bus, name;
};
std::optional<DeviceLine> parse_device_line(std::string_view l) {
  auto toks = split_ws(l);
  if (toks.size() < 9 || toks[0] != "#" || toks[1] != "Rank") return std::nullopt;
  DeviceLine d;
  if (auto r = parse_int(toks[2]); r && *r >= 0 && *r < 10000000) d.rank = static_cast<int>(*r);
  std::size_t i = 2;
  for (; i + 1 < toks.size(); ++i) {
    if (toks[i] == "on") {
      d.host = std::string(toks[i + 1]);
      break;
    }
  }
  for (; i < toks.size(); ++i) {
    if (toks[i] == "device" && i + 1 < toks.size()) {
      if (auto v = parse_int(toks[i + 1]); v && *v >= 0 && *v < 4096) d.device = static_cast<int>(*v);
    }
    if (toks[i].size() > 2 && toks[i].front() == '[' && toks[i].back() == ']') {
      d.bus = std::string(toks[i].substr(1, toks[i].size() - 2));
      for (std::size_t j = i + 1; j < toks.size(); ++j) d.name += (d.name.empty() ? "" : " ") + std::string(toks[j]);
      break;
    }
  }
  if (d.host.empty()) return std::nullopt;
  return d;
}

}  // namespace

std::string_view strip_launcher_prefix(std::string_view line) {
  for (int guard = 0; guard < 4; ++guard) {
    std::string_view l = line;
    while (!l.empty() && l.front() == ' ' && l.size() > 1 && l[1] == '(') l.remove_prefix(1);
    if (!l.empty() && l.front() == '(') {
      // SkyPilot: "(head, rank=0, pid=3808) "
      auto close = l.find(") ");
      if (close != std::string_view::npos && close < 120 && l.substr(0, close).find("pid=") != std::string_view::npos) {
        line = l.substr(close + 2);
        continue;
      }
    }
    if (!l.empty() && l.front() == '[') {
      // Open MPI --tag-output: "[1,0]<stdout>:"
      auto gt = l.find(">:");
      if (gt != std::string_view::npos && gt < 40 && l.find("]<") != std::string_view::npos) {
        line = l.substr(gt + 2);
        continue;
      }
    }
    break;
  }
  return line;
}

std::vector<std::string> device_bus_prefixes(std::string_view text) {
  std::vector<std::string> out;
  for (auto raw : split_lines(text)) {
    if (auto d = parse_device_line(trim(strip_launcher_prefix(raw)))) {
      if (!d->bus.empty()) out.push_back(d->bus);
    }
  }
  return out;
}

Result<NcclTestsRun> parse_nccl_tests(std::string_view text, const std::string& origin) {
  auto first = trim(text.substr(0, 4096));
  if (!first.empty() && (first.front() == '{' || first.front() == '[') && first.find("Rank") == std::string_view::npos) {
    return parse_nccl_tests_json(text, origin);
  }
  NcclTestsRun run;
  run.origin = origin;
  std::map<std::string, int> hosts;  // host -> ranks listed on it
  std::set<std::string> names;
  int ranks = 0;
  int listed = 0;
  int max_device = -1;
  bool rows_then_footer = false;
  for (auto raw : split_lines(text)) {
    std::string_view l = trim(strip_launcher_prefix(raw));
    if (l.empty()) continue;
    if (l.find(" NCCL INFO ") != std::string_view::npos || l.find(" NCCL WARN ") != std::string_view::npos) {
      auto p = l.find("NCCL version ");
      if (l.find(" MNNVL 1") != std::string_view::npos) run.mnnvl = true;
      if (p != std::string_view::npos && run.nccl_version.empty()) {
        auto toks = split_ws(l.substr(p + 13));
        if (!toks.empty()) run.nccl_version = std::string(toks[0]);
      }
      continue;
    }
    if (starts_with(l, "NCCL version ")) {
      auto toks = split_ws(l.substr(13));
      if (!toks.empty()) run.nccl_version = std::string(toks[0]);
      continue;
    }
    if (l.front() == '#') {
      if (starts_with(l, "# nThread")) run.header_seen = true;
      if (starts_with(l, "# Collective test starting:")) run.collective = std::string(trim(l.substr(27)));
      if (auto d = parse_device_line(l)) {
        // Long rank lists are often elided ("..."): the highest rank number counts them.
        ranks = std::max({ranks + 1, d->rank + 1});
        ++hosts[d->host];
        ++listed;
        max_device = std::max(max_device, d->device);
        if (!d->name.empty()) names.insert(d->name);
      }
      auto colon = l.find(':');
      auto head = colon == std::string_view::npos ? std::string_view() : trim(l.substr(1, colon - 1));
      if (head == "Out of bounds values") {
        auto toks = split_ws(l.substr(colon + 1));
        if (!toks.empty()) {
          if (auto v = parse_int(toks[0])) run.out_of_bounds = *v;
        }
        run.footer_seen = true;
      }
      if (head == "Avg bus bandwidth") {
        auto toks = split_ws(l.substr(colon + 1));
        if (!toks.empty()) run.avg_busbw = parse_double(toks[0]);
        run.footer_seen = true;
      }
      continue;
    }
    // A data row: size count type redop [root] time algbw busbw #wrong time algbw busbw #wrong
    auto t = split_ws(l);
    if (t.size() < 12 || !all_digits(t[0]) || !all_digits(t[1])) continue;
    if (t[2].empty() || std::isalpha(static_cast<unsigned char>(t[2][0])) == 0) continue;
    NcclTestsRow r;
    r.size = parse_uint(t[0]).value_or(0);
    r.count = parse_uint(t[1]).value_or(0);
    r.type = std::string(t[2]);
    r.redop = std::string(t[3]);
    // Since v2.13 a root column follows redop ("-1" for non-rooted collectives).
    std::size_t b = (t.size() >= 13 && parse_int(t[4])) ? 5 : 4;
    if (t.size() < b + 8) continue;
    r.oop_time_us = num_or_na(t[b]);
    r.oop_algbw = num_or_na(t[b + 1]);
    r.oop_busbw = num_or_na(t[b + 2]);
    r.oop_wrong = num_or_na(t[b + 3]);
    r.ip_time_us = num_or_na(t[b + 4]);
    r.ip_algbw = num_or_na(t[b + 5]);
    r.ip_busbw = num_or_na(t[b + 6]);
    r.ip_wrong = num_or_na(t[b + 7]);
    if (!r.oop_busbw && !r.ip_busbw) continue;
    run.rows.push_back(std::move(r));
    rows_then_footer = run.footer_seen;
  }
  if (run.rows.empty()) {
    return make_error(ErrorKind::invalid, origin + ": no nccl-tests result rows (size count type redop ... busbw) found");
  }
  // A footer printed before the last row belongs to an earlier run; the log ends without one.
  run.truncated = !run.footer_seen || rows_then_footer;
  if (ranks > 0) run.ranks = ranks;
  run.hosts_listed = static_cast<int>(hosts.size());
  run.hosts = run.hosts_listed;
  if (ranks > listed && listed > 0) {
    // An elided rank list names only some hosts: count them as ranks / ranks per host, the ranks per
    // host being the most seen on one host or the highest device index + 1.
    int per_host = max_device + 1;
    for (const auto& [h, n] : hosts) per_host = std::max(per_host, n);
    if (per_host > 0) run.hosts = std::max(run.hosts, (ranks + per_host - 1) / per_host);
  }
  if (run.collective.empty()) {
    // Logs without "# Collective test starting:" often keep the binary's name in the file name.
    for (const char* bin : {"sendrecv_perf", "all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "alltoall_perf",
                            "broadcast_perf", "reduce_perf", "gather_perf", "scatter_perf", "hypercube_perf"}) {
      if (origin.find(bin) != std::string::npos) {
        run.collective = bin;
        break;
      }
    }
  }
  run.gpu_names.assign(names.begin(), names.end());
  if (run.collective.empty() && !run.rows.empty() && run.rows.front().redop == "none") run.collective = "";
  return run;
}

Result<NcclTestsRun> parse_nccl_tests_json(std::string_view text, const std::string& origin) {
  auto parsed = parse_outside_json(text);
  if (!parsed) return make_error(ErrorKind::invalid, origin + ": " + parsed.error().message);
  const json& doc = *parsed;
  NcclTestsRun run;
  run.origin = origin;
  run.header_seen = true;
  auto num = [](const json& o, std::initializer_list<const char*> keys) -> std::optional<double> {
    if (!o.is_object()) return std::nullopt;
    for (const char* k : keys) {
      auto it = o.find(k);
      if (it == o.end()) continue;
      if (it->is_number()) return it->get<double>();
      if (it->is_string()) return parse_double(it->get<std::string>());
    }
    return std::nullopt;
  };
  std::vector<const json*> todo{&doc};
  std::size_t visited = 0;
  while (!todo.empty() && ++visited < 1000000) {
    const json* j = todo.back();
    todo.pop_back();
    if (j->is_array()) {
      for (auto it = j->rbegin(); it != j->rend(); ++it) todo.push_back(&*it);
      continue;
    }
    if (!j->is_object()) continue;
    if (j->contains("size") && (j->contains("out_of_place") || j->contains("in_place"))) {
      NcclTestsRow r;
      auto sz = num(*j, {"size"});
      auto ct = num(*j, {"count"});
      if (!sz || *sz < 0 || *sz > 1.8e19) continue;
      r.size = static_cast<std::uint64_t>(*sz);
      r.count = ct && *ct >= 0 && *ct < 1.8e19 ? static_cast<std::uint64_t>(*ct) : 0;
      if (j->contains("type") && (*j)["type"].is_string()) r.type = (*j)["type"].get<std::string>();
      if (j->contains("redop") && (*j)["redop"].is_string()) r.redop = (*j)["redop"].get<std::string>();
      const json& o = j->contains("out_of_place") ? (*j)["out_of_place"] : json();
      const json& i = j->contains("in_place") ? (*j)["in_place"] : json();
      r.oop_time_us = num(o, {"time"});
      r.oop_algbw = num(o, {"alg_bw", "algbw"});
      r.oop_busbw = num(o, {"bus_bw", "busbw"});
      r.oop_wrong = num(o, {"wrong", "nwrong", "#wrong"});
      r.ip_time_us = num(i, {"time"});
      r.ip_algbw = num(i, {"alg_bw", "algbw"});
      r.ip_busbw = num(i, {"bus_bw", "busbw"});
      r.ip_wrong = num(i, {"wrong", "nwrong", "#wrong"});
      if (r.oop_busbw || r.ip_busbw) run.rows.push_back(std::move(r));
      continue;
    }
    for (auto it = j->begin(); it != j->end(); ++it) {
      if (it.key() == "out_of_bounds") {
        if (auto c = num(it.value(), {"count"})) run.out_of_bounds = static_cast<std::int64_t>(*c);
        run.footer_seen = true;
      } else if (it.key() == "average_bus_bandwidth") {
        run.avg_busbw = num(it.value(), {"bandwidth"});
        run.footer_seen = true;
      } else if ((it.key() == "collective" || it.key() == "name" || it.key() == "test") && it.value().is_string()) {
        std::string v = it.value().get<std::string>();
        if (v.size() < 64 && v.find("_perf") != std::string::npos) run.collective = v;
      }
      if (it.value().is_structured()) todo.push_back(&it.value());
    }
  }
  if (run.rows.empty()) return make_error(ErrorKind::invalid, origin + ": no nccl-tests result rows in the JSON");
  run.truncated = !run.footer_seen;
  return run;
}

BusbwSummary summarize(const NcclTestsRun& run) {
  BusbwSummary s;
  double sum = 0;
  for (const auto& r : run.rows) {
    s.max_size = std::max(s.max_size, r.size);
    for (const auto& bw : {r.oop_busbw, r.ip_busbw}) {
      if (!bw) continue;
      if (!s.peak || *bw > *s.peak) {
        s.peak = *bw;
        s.peak_size = r.size;
      }
      if (r.size >= kLargeMessageBytes) {
        sum += *bw;
        ++s.large_samples;
      }
    }
    double w = r.oop_wrong.value_or(0) + r.ip_wrong.value_or(0);
    if (w > 0) {
      s.wrong += w;
      ++s.wrong_rows;
    }
  }
  if (s.large_samples > 0) s.large_avg = sum / s.large_samples;
  return s;
}

namespace {

std::optional<BusbwCeiling> from_topology(const Topology& topo, const std::vector<int>& set, const std::string& model_name) {
  if (set.size() < 2) return std::nullopt;
  bool all_nv = true;
  for (std::size_t a = 0; a < set.size(); ++a) {
    for (std::size_t b = a + 1; b < set.size(); ++b) {
      auto i = static_cast<std::size_t>(set[a]);
      auto j = static_cast<std::size_t>(set[b]);
      if (i >= topo.nvlinks.size() || j >= topo.nvlinks[i].size() || topo.nvlinks[i][j] <= 0) all_nv = false;
    }
  }
  std::string name = model_name;
  for (int g : set) {
    if (name.empty()) name = topo.gpus[static_cast<std::size_t>(g)].name;
  }
  const GpuModel* m = name.empty() ? nullptr : gpu_model_by_name(name);
  if (all_nv) {
    if (m == nullptr || m->nvlink_gen == 0) {
      // NVLink-bridged PCIe boards (H100 PCIe NV12): generation follows the PCIe generation.
      int gen = m != nullptr && m->pcie_gen == 5 ? 4 : (m != nullptr && m->pcie_gen == 4 ? 3 : 0);
      if (gen == 0) return std::nullopt;
      m = nullptr;
      int links = 1 << 30;
      for (int g : set) {
        int sum = 0;
        for (int h : set) {
          if (h != g) sum += topo.nvlinks[static_cast<std::size_t>(g)][static_cast<std::size_t>(h)];
        }
        links = std::min(links, sum);
      }
      return nvlink_ceiling(gen, links, "topology (" + topo.source + ")");
    }
    const NvlinkRate* r = nvlink_rate(m->nvlink_gen);
    int links = 1 << 30;
    for (int g : set) {
      // Through an NVSwitch every peer shows the GPU's full count; in a mesh the peers' counts add up.
      int sum = 0;
      for (int h : set) {
        if (h != g) sum += topo.nvlinks[static_cast<std::size_t>(g)][static_cast<std::size_t>(h)];
      }
      links = std::min(links, std::min(sum, r->links_per_gpu));
    }
    return nvlink_ceiling(m->nvlink_gen, links, "topology (" + topo.source + "), " + std::string(m->name));
  }
  // Some pair crosses PCIe: the GPUs' own links bound the ring.
  int gen = 0, width = 0;
  for (int g : set) {
    for (const auto& f : topo.pci) {
      if (f.bus_id != topo.gpus[static_cast<std::size_t>(g)].bus_id) continue;
      int fg = pcie_gen_from_speed(f.max_link_speed).value_or(0);
      int fw = f.max_link_width.value_or(0);
      if (fg > 0 && (gen == 0 || fg < gen)) gen = fg;
      if (fw > 0 && (width == 0 || fw < width)) width = fw;
    }
  }
  if (gen == 0 && m != nullptr) gen = m->pcie_gen;
  if (width == 0) width = 16;
  if (gen == 0) return std::nullopt;
  return pcie_ceiling(gen, width, "topology (" + topo.source + ")");
}

}  // namespace

Fact<BusbwCeiling> infer_ceiling(const NcclTestsRun& run, const std::vector<std::string>& log_buses,
                                 const std::optional<BusbwCeiling>& forced, const Topology* topo,
                                 std::optional<double> net_gbit, int net_ports, const std::string& net_source) {
  std::optional<BusbwCeiling> intra = forced;
  std::string model = run.gpu_names.empty() ? std::string() : run.gpu_names.front();
  int hosts = std::max(run.hosts, 1);
  int local = run.ranks ? std::max(1, *run.ranks / hosts) : 0;
  if (!intra && topo != nullptr && !topo->gpus.empty()) {
    std::vector<int> set;
    if (topo->pci.empty()) {
      // A saved topo -m text has no bus ids: the log's ranks map to GPU0..GPU(n-1).
      if (local >= 2 && local <= static_cast<int>(topo->gpus.size())) {
        for (int g = 0; g < local; ++g) set.push_back(g);
      }
    } else if (!log_buses.empty()) {
      // Device lines print "dddd:bb:dd"; the first host's ranks are the first `local` lines.
      for (std::size_t k = 0; k < log_buses.size() && static_cast<int>(k) < local; ++k) {
        for (std::size_t g = 0; g < topo->gpus.size(); ++g) {
          if (starts_with(topo->gpus[g].bus_id, log_buses[k])) set.push_back(static_cast<int>(g));
        }
      }
      if (static_cast<int>(set.size()) != local) set.clear();
    }
    if (!set.empty()) intra = from_topology(*topo, set, model);
  }
  const bool p2p = run.collective == "sendrecv_perf";
  if (intra) intra->path = "intra-node";
  const GpuModel* named = model.empty() ? nullptr : gpu_model_by_name(model);
  if (!intra && named != nullptr) {
    std::string src = "GPU model in the log: " + model;
    if (named->nvlink_gen > 0) {
      intra = nvlink_ceiling(named->nvlink_gen, named->nvlinks, src);
    } else if (named->pcie_gen > 0) {
      intra = pcie_ceiling(named->pcie_gen, 16, src);
    }
    if (intra) {
      intra->assumed = true;
      intra->path = "intra-node";
      intra->source += " (link assumed: give --topo-text or --link, or run plumb on that machine)";
      if (p2p) intra->source += "; a point-to-point pair may have fewer links than the GPU";
    }
  }
  if (!intra) {
    return Fact<BusbwCeiling>::none(model.empty() ? "the log names no GPU and no --link was given"
                                                  : "no link rate known for '" + model + "': give --link");
  }
  if (hosts > 1) {
    int domain = named != nullptr ? named->nvlink_domain : 0;
    bool nvl = run.mnnvl || domain > 0;
    std::string across = std::to_string(hosts) + " hosts";
    if (nvl && (domain == 0 || !run.ranks || *run.ranks <= domain)) {
      intra->path = "NVLink domain";
      intra->source += "; " + across + " in one multi-node NVLink domain";
    } else if (net_gbit && *net_gbit > 0) {
      BusbwCeiling net = network_ceiling(*net_gbit, net_ports, net_source);
      net.path = "network";
      if (net.gbps < intra->gbps) return Fact<BusbwCeiling>::of(net, net.source);
      intra->path = nvl ? "NVLink domain" : "network";
    } else if (nvl) {
      intra->path = "NVLink domain";
      intra->assumed = true;
      intra->source += "; " + across + " across " + std::to_string((*run.ranks + domain - 1) / domain) +
                       " NVLink domains of " + std::to_string(domain) + " GPUs: the network between them is not known (give --net-gbps)";
    } else {
      intra->path = "network";
      intra->assumed = true;
      intra->source += "; " + across + ": the network is the path and its rate is unknown (give --net-gbps); the GPU link bounds it from above";
    }
  }
  std::string src = intra->source;
  return Fact<BusbwCeiling>::of(*intra, src);
}

}  // namespace plumb
