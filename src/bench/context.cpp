// Reads the context block of a benchmark through the host root (governor, load, CPU model,
// NUMA nodes, kernel) plus GPU clocks through NVML when a GPU benchmark runs.
#include "bench/context.h"


#include <algorithm>

#include "bench/nvml_clocks.h"
#include "collect/cpu.h"
#include "core/cpulist.h"
#include "core/iso_time.h"
#include "core/text.h"

namespace plumb {

std::optional<double> parse_loadavg(std::string_view text) {
  auto f = split_ws(trim(text));
  if (f.empty()) return std::nullopt;
  return parse_double(f[0]);
}

std::vector<std::vector<int>> numa_nodes(const HostRoot& root, const std::vector<int>& allowed) {
  std::vector<std::vector<int>> nodes;
  auto entries = root.list("/sys/devices/system/node");
  if (!entries) return nodes;
  for (const auto& e : *entries) {
    if (e.rfind("node", 0) != 0 || !parse_uint(std::string_view(e).substr(4))) continue;
    auto cpus = root.read_value("/sys/devices/system/node/" + e + "/cpulist");
    if (!cpus) continue;
    auto listed = parse_cpulist(*cpus);
    if (!listed) continue;
    std::vector<int> mine;
    for (int c : *listed) {
      if (std::binary_search(allowed.begin(), allowed.end(), c)) mine.push_back(c);
    }
    if (!mine.empty()) nodes.push_back(std::move(mine));
  }
  return nodes;
}

std::optional<std::uint64_t> last_level_cache_bytes(const HostRoot& root) {
  std::optional<std::uint64_t> best;
  auto idx = root.list("/sys/devices/system/cpu/cpu0/cache");
  if (!idx) return best;
  for (const auto& e : *idx) {
    if (e.rfind("index", 0) != 0) continue;
    auto size = root.read_value("/sys/devices/system/cpu/cpu0/cache/" + e + "/size");
    if (!size) continue;
    auto b = parse_size(*size);  // "32768K"
    if (b && (!best || *b > *best)) best = b;
  }
  return best;
}

namespace {

Fact<double> read_load(const HostRoot& root) {
  auto t = root.read("/proc/loadavg");
  if (!t) return Fact<double>::none(t.error().describe(), "/proc/loadavg");
  auto v = parse_loadavg(*t);
  if (!v) return Fact<double>::none("unparsable", "/proc/loadavg");
  return Fact<double>::of(*v, "/proc/loadavg");
}

}  // namespace

BenchContext read_bench_context(const Context& ctx, bool gpu) {
  BenchContext c;
  c.started_at = now_iso8601();
  auto h = ctx.root.read_value("/proc/sys/kernel/hostname");
  c.hostname = h ? *h : "unknown";
  auto info = ctx.root.read("/proc/cpuinfo");
  if (info) {
    auto m = parse_cpuinfo(*info).model;
    c.cpu_model = m ? Fact<std::string>::of(*m, "/proc/cpuinfo") : Fact<std::string>::none("no model name", "/proc/cpuinfo");
  } else {
    c.cpu_model = Fact<std::string>::none(info.error().describe(), "/proc/cpuinfo");
  }
  const std::string gov_path = "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor";
  c.governor = Fact<std::string>::from(ctx.root.read_value(gov_path), gov_path);
  c.load_before = read_load(ctx.root);
  auto cpus = affinity_cpus();
  c.allowed_cpus = Fact<int>::of(static_cast<int>(cpus.size()), "sched_getaffinity");
  auto nodes = numa_nodes(ctx.root, cpus);
  c.numa_nodes = nodes.empty() ? Fact<int>::none("no NUMA information", "/sys/devices/system/node")
                               : Fact<int>::of(static_cast<int>(nodes.size()), "/sys/devices/system/node");
  c.kernel = Fact<std::string>::from(ctx.root.read_value("/proc/sys/kernel/osrelease"), "/proc/sys/kernel/osrelease");
  c.versions["plumb"] = PLUMB_VERSION;
  if (gpu) c.gpus_before = read_gpu_states(ctx.nvml_lib, ctx.deadline, ctx.root);
  return c;
}

BenchContext finish_bench_context(const Context& ctx, BenchContext c, bool gpu) {
  c.load_after = read_load(ctx.root);
  if (gpu) c.gpus_after = read_gpu_states(ctx.nvml_lib, ctx.deadline, ctx.root);
  return c;
}

}  // namespace plumb
