// Topology levels from the PCI tree, the topo -m text parser, close groups and the matrix text.
#include "analyze/topology.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "core/knowledge/links.h"
#include "collect/topology.h"
#include "core/host_root.h"
#include "core/text.h"

namespace plumb {

namespace {

bool is_level(const std::string& s) {
  return s == "X" || s == "PIX" || s == "PXB" || s == "PHB" || s == "NODE" || s == "SYS";
}

std::optional<int> nv_count(std::string_view s) {
  if (s.size() < 3 || s.substr(0, 2) != "NV") return std::nullopt;
  auto v = parse_int(s.substr(2));
  if (!v || *v < 1 || *v > 256) return std::nullopt;
  return static_cast<int>(*v);
}

}  // namespace

int link_cost(const std::string& cell) {
  if (cell == "X") return 0;
  if (auto n = nv_count(cell)) return 100 - std::min(*n, 99);
  if (cell == "PIX") return 200;
  if (cell == "PXB") return 300;
  if (cell == "PHB") return 400;
  if (cell == "NODE") return 500;
  return 600;  // SYS and anything unknown
}

std::string topo_cell(const Topology& t, std::size_t i, std::size_t j) {
  if (i == j) return "X";
  if (i < t.nvlinks.size() && j < t.nvlinks[i].size() && t.nvlinks[i][j] > 0) {
    return "NV" + std::to_string(t.nvlinks[i][j]);
  }
  if (i < t.pcie.size() && j < t.pcie[i].size() && !t.pcie[i][j].empty()) return t.pcie[i][j];
  return "SYS";
}

Result<Topology> parse_topo_text(std::string_view text) {
  auto lines = split_lines(text);
  std::size_t header = lines.size();
  std::vector<std::string> cols;
  std::vector<std::string> extra;  // affinity column titles in order
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto toks = split_ws(lines[i]);
    if (toks.empty()) continue;
    if (toks[0] == "GPU0" && toks.size() >= 1) {
      // A header has no cell tokens after GPU0 on the same line ("GPU0 GPU1 ...").
      bool is_header = toks.size() == 1 || toks[1] == "GPU1" || starts_with(toks[1], "NIC") || toks[1] == "CPU" ||
                       starts_with(toks[1], "mlx");
      if (!is_header) continue;
      std::size_t k = 0;
      for (; k < toks.size() && toks[k] != "CPU" && toks[k] != "NUMA" && toks[k] != "GPU" &&
             toks[k] != "Affinity"; ++k) {
        cols.emplace_back(toks[k]);
      }
      std::string rest;
      for (; k < toks.size(); ++k) rest += (rest.empty() ? "" : " ") + std::string(toks[k]);
      for (const char* name : {"CPU Affinity", "NUMA Affinity", "GPU NUMA ID"}) {
        if (rest.find(name) != std::string::npos) extra.emplace_back(name);
      }
      header = i;
      break;
    }
  }
  if (header == lines.size() || cols.empty()) {
    return make_error(ErrorKind::invalid, "no `nvidia-smi topo -m` matrix found (expected a header row starting with GPU0)");
  }
  std::map<std::string, std::string> legend;  // NIC0 -> mlx5_0
  for (std::size_t i = header + 1; i < lines.size(); ++i) {
    auto l = trim(lines[i]);
    auto colon = l.find(':');
    if (starts_with(l, "NIC") && colon != std::string_view::npos && colon < 8) {
      std::string label(trim(l.substr(0, colon)));
      std::string name(trim(l.substr(colon + 1)));
      if (!name.empty() && name.find(' ') == std::string::npos) legend[label] = name;
    }
  }
  Topology t;
  t.source = "nvidia-smi topo -m text";
  t.nvlink_known = true;
  std::size_t n = cols.size();
  t.pcie.assign(n, std::vector<std::string>(n));
  t.nvlinks.assign(n, std::vector<int>(n, 0));
  std::vector<bool> seen(n, false);
  for (std::size_t li = header + 1; li < lines.size(); ++li) {
    auto toks = split_ws(lines[li]);
    if (toks.empty()) continue;
    auto it = std::find(cols.begin(), cols.end(), std::string(toks[0]));
    if (it == cols.end()) continue;
    auto row = static_cast<std::size_t>(it - cols.begin());
    if (seen[row]) continue;
    if (toks.size() < n + 1) {
      return make_error(ErrorKind::invalid, "row " + cols[row] + " has " + std::to_string(toks.size() - 1) +
                                                " cells, the header names " + std::to_string(n) + " devices");
    }
    seen[row] = true;
    for (std::size_t j = 0; j < n; ++j) {
      std::string cell(toks[j + 1]);
      if (cell == "SOC") cell = "SYS";  // name used by drivers before 384
      if (auto nv = nv_count(cell)) {
        t.nvlinks[row][j] = *nv;
      } else if (is_level(cell)) {
        t.pcie[row][j] = cell;
      } else {
        return make_error(ErrorKind::invalid, "row " + cols[row] + " column " + cols[j] + ": '" + cell +
                                                  "' is not a topo -m level (X, NV#, PIX, PXB, PHB, NODE, SYS)");
      }
      if ((row == j) != (cell == "X")) {
        return make_error(ErrorKind::invalid, "row " + cols[row] + " column " + cols[j] + ": '" + cell +
                                                  "' where the diagonal X belongs");
      }
    }
    // Affinity columns follow in header order; empty tab cells vanish in the whitespace split.
    std::vector<std::string> aff;
    for (std::size_t j = n + 1; j < toks.size(); ++j) aff.emplace_back(toks[j]);
    std::string cpus, numa;
    for (std::size_t e = 0; e < extra.size() && e < aff.size(); ++e) {
      if (extra[e] == "CPU Affinity") cpus = aff[e];
      if (extra[e] == "NUMA Affinity") numa = aff[e];
    }
    std::optional<int> numa_node;
    if (auto v = parse_int(numa)) numa_node = static_cast<int>(*v);
    if (starts_with(cols[row], "GPU")) {
      t.gpus.push_back({cols[row], "", "", cpus, numa_node});
    } else {
      std::string label = cols[row];
      std::string name = legend.count(label) ? legend[label] : label;
      if (!starts_with(label, "NIC")) label = "NIC" + std::to_string(t.nics.size());
      t.nics.push_back({label, name, "", "", cpus, numa_node});
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!seen[i]) return make_error(ErrorKind::invalid, "row " + cols[i] + " is missing (truncated output?)");
  }
  // Rows may list GPUs before NICs in any order; the header order is the device order.
  bool gpus_first = true;
  bool in_nics = false;
  for (const auto& c : cols) {
    if (!starts_with(c, "GPU")) in_nics = true;
    else if (in_nics) gpus_first = false;
  }
  if (!gpus_first) return make_error(ErrorKind::invalid, "GPU columns after NIC columns are not supported");
  return t;
}

GpuGroup score_group(const Topology& t, const std::vector<int>& gpus) {
  GpuGroup g;
  g.gpus = gpus;
  g.worst = gpus.size() == 1 ? "X" : "";
  for (std::size_t a = 0; a < gpus.size(); ++a) {
    for (std::size_t b = a + 1; b < gpus.size(); ++b) {
      auto i = static_cast<std::size_t>(gpus[a]);
      auto j = static_cast<std::size_t>(gpus[b]);
      std::string cell = topo_cell(t, i, j);
      int cost = link_cost(cell);
      // PCIe distance still matters between NVLink peers (host staging, NUMA-local memory).
      // Bounds-checked: a topology read back from a snapshot may have a malformed matrix.
      bool have = i < t.pcie.size() && j < t.pcie[i].size() && !t.pcie[i][j].empty();
      int pcost = have ? link_cost(t.pcie[i][j]) : 0;
      if (g.worst.empty() || cost > g.worst_cost) {
        g.worst_cost = cost;
        g.worst = cell;
      }
      g.worst_pcie_cost = std::max(g.worst_pcie_cost, pcost);
      g.sum_cost += cost + pcost;
    }
  }
  return g;
}

namespace {
auto group_key(const GpuGroup& g) { return std::make_tuple(g.worst_cost, g.worst_pcie_cost, g.sum_cost); }

// Calls fn for each k-subset of 0..n-1 in lexicographic order; stops after `limit` subsets.
template <class Fn>
bool for_each_subset(int n, int k, std::size_t limit, Fn fn) {
  std::vector<int> idx(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) idx[static_cast<std::size_t>(i)] = i;
  std::size_t count = 0;
  for (;;) {
    if (++count > limit) return false;
    fn(idx);
    int i = k - 1;
    while (i >= 0 && idx[static_cast<std::size_t>(i)] == n - k + i) --i;
    if (i < 0) return true;
    ++idx[static_cast<std::size_t>(i)];
    for (int j = i + 1; j < k; ++j) idx[static_cast<std::size_t>(j)] = idx[static_cast<std::size_t>(j - 1)] + 1;
  }
}
}  // namespace

std::vector<GpuGroup> close_groups(const Topology& t, int k, std::size_t max_groups, bool* cut) {
  int n = static_cast<int>(t.gpus.size());
  if (cut != nullptr) *cut = false;
  if (k < 1 || k > n) return {};
  std::vector<GpuGroup> best;
  // All work is counted in GPU pairs scored (score_group looks at k(k-1)/2 pairs), so the bound
  // holds for any n and k: the exhaustive search runs only when every subset fits in it.
  const std::size_t pairs = static_cast<std::size_t>(k) * static_cast<std::size_t>(k - 1) / 2 + 1;
  std::size_t budget = kMaxPairScores;
  std::size_t subsets = 1;  // C(n, k), saturating at the subset cap
  for (int i = 1; i <= k && subsets <= kMaxSubsets; ++i) {
    subsets = subsets * static_cast<std::size_t>(n - k + i) / static_cast<std::size_t>(i);
  }
  bool complete = subsets <= kMaxSubsets && subsets * pairs <= budget &&
                  for_each_subset(n, k, kMaxSubsets, [&](const std::vector<int>& s) {
                    GpuGroup g = score_group(t, s);
                    if (best.empty() || group_key(g) < group_key(best.front())) {
                      best.clear();
                      best.push_back(g);
                    } else if (group_key(g) == group_key(best.front())) {
                      best.push_back(g);
                    }
                  });
  if (!complete) {
    // Too many sets to try every one: grow a set greedily from each GPU, within the budget.
    if (cut != nullptr) *cut = true;
    best.clear();
    for (int seed = 0; seed < n; ++seed) {
      std::vector<int> s{seed};
      bool spent = false;
      while (static_cast<int>(s.size()) < k && !spent) {
        std::optional<GpuGroup> pick;
        const std::size_t cost = (s.size() + 1) * s.size() / 2 + 1;
        for (int c = 0; c < n; ++c) {
          if (std::find(s.begin(), s.end(), c) != s.end()) continue;
          if (budget < cost) {
            spent = true;
            break;
          }
          budget -= std::min(budget, cost);
          auto trial = s;
          trial.push_back(c);
          std::sort(trial.begin(), trial.end());
          GpuGroup g = score_group(t, trial);
          if (!pick || group_key(g) < group_key(*pick)) pick = g;
        }
        if (!spent) s = pick->gpus;
      }
      // Out of budget mid-set: fill it up in GPU order so that there is always an answer.
      for (int c = 0; spent && static_cast<int>(s.size()) < k; ++c) {
        if (std::find(s.begin(), s.end(), c) == s.end()) s.push_back(c);
      }
      std::sort(s.begin(), s.end());
      GpuGroup g = score_group(t, s);
      if (best.empty() || group_key(g) < group_key(best.front())) best = {g};
      else if (group_key(g) == group_key(best.front()) && std::find(best.begin(), best.end(), g) == best.end())
        best.push_back(g);
      if (spent) break;  // the best group grown so far stands
    }
  }
  // A disjoint cover first (what a scheduler packing several jobs wants), then the rest.
  std::vector<GpuGroup> out;
  std::set<int> used;
  for (const auto& g : best) {
    bool free = std::none_of(g.gpus.begin(), g.gpus.end(), [&](int x) { return used.count(x) > 0; });
    if (free) {
      out.push_back(g);
      used.insert(g.gpus.begin(), g.gpus.end());
    }
  }
  for (const auto& g : best) {
    if (out.size() >= max_groups) break;
    if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
  }
  if (out.size() > max_groups) out.resize(max_groups);
  return out;
}

std::string visible_devices_value(const std::vector<int>& gpus) {
  std::string v;
  for (int g : gpus) v += (v.empty() ? "" : ",") + std::to_string(g);
  return "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=" + v;
}

Result<std::vector<int>> resolve_visible_devices(std::string_view value, const Topology& t, const GpuFacts& gpu) {
  std::vector<int> out;
  for (auto raw : split(value, ',')) {
    std::string e(trim(raw));
    if (e.empty()) continue;
    if (auto v = parse_int(e)) {
      // CUDA stops at the first invalid index; so do we.
      if (*v < 0 || *v >= static_cast<std::int64_t>(t.gpus.size())) {
        return make_error(ErrorKind::invalid, "CUDA_VISIBLE_DEVICES entry '" + e + "' is not a GPU of this machine (" +
                                                  std::to_string(t.gpus.size()) + " GPUs)");
      }
      out.push_back(static_cast<int>(*v));
      continue;
    }
    if (starts_with(e, "MIG-")) return make_error(ErrorKind::unsupported, "MIG instance '" + e + "' in CUDA_VISIBLE_DEVICES");
    if (starts_with(e, "GPU-")) {
      std::string bus;
      for (const auto& d : gpu.devices) {
        if (!d.uuid.empty() && starts_with(d.uuid, e)) bus = d.bus_id;
      }
      auto it = std::find_if(t.gpus.begin(), t.gpus.end(), [&](const TopoGpu& g) { return !bus.empty() && g.bus_id == bus; });
      if (it == t.gpus.end()) {
        return make_error(ErrorKind::unsupported, "cannot map '" + e + "' to a bus id without the GPU layer's UUIDs");
      }
      out.push_back(static_cast<int>(it - t.gpus.begin()));
      continue;
    }
    return make_error(ErrorKind::invalid, "CUDA_VISIBLE_DEVICES entry '" + e + "' is neither an index nor a GPU UUID");
  }
  return out;
}

}  // namespace plumb
