// CPU facts from /proc/cpuinfo and /sys/devices/system/{cpu,node}; the sysctl kernel.numa_balancing is read by sysctl.cpp.
#include "collect/cpu.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "core/cpulist.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {
// "key\t\t: value" -> key, value (both trimmed); false for lines without a colon.
bool split_field(std::string_view line, std::string_view& key, std::string_view& value) {
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return false;
  key = trim(line.substr(0, colon));
  value = trim(line.substr(colon + 1));
  return true;
}

// Governor and driver names are short lower-case words ("performance", "amd-pstate-epp"); anything
// else is a damaged file, not a governor.
bool is_word(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '+';
    if (!ok) return false;
  }
  return true;
}

bool is_cpu_dir(const std::string& name, int& n) {
  if (name.size() < 4 || name.compare(0, 3, "cpu") != 0) return false;
  auto v = parse_uint(std::string_view(name).substr(3));
  if (!v || *v >= static_cast<std::uint64_t>(kCpuNumberLimit)) return false;
  n = static_cast<int>(*v);
  return true;
}
}  // namespace

CpuInfo parse_cpuinfo(std::string_view text) {
  CpuInfo info;
  std::set<std::pair<long, long>> cores;
  std::set<long> packages;
  long phys = -1;
  long core = -1;
  bool any_topology = false;
  std::optional<std::string> hardware;
  auto flush = [&] {
    if (phys >= 0 && core >= 0) cores.emplace(phys, core);
    if (phys >= 0) packages.insert(phys);
    phys = core = -1;
  };
  for (auto line : split_lines(text)) {
    std::string_view key;
    std::string_view value;
    if (!split_field(line, key, value)) continue;
    if (key == "processor") {
      // x86 and arm64 number their records "processor : N"; old ARM kernels print
      // "Processor : ARMv7 ..." (capital P) as the model instead, handled below.
      if (parse_uint(value)) {
        flush();
        ++info.processors;
      }
    } else if ((key == "model name" || key == "Processor" || key == "cpu model" || key == "cpu") && !value.empty() &&
               !info.model) {
      info.model = std::string(value);
    } else if (key == "Hardware" && !value.empty() && !hardware) {
      hardware = std::string(value);  // arm SoC name: the model only when nothing better is printed
    } else if (key == "vendor_id" && info.vendor.empty()) {
      info.vendor = std::string(value.substr(0, 64));
    } else if (key == "cpu family" && !info.family) {
      if (auto v = parse_uint(value); v && *v < 1u << 16) info.family = static_cast<std::int64_t>(*v);
    } else if (key == "model" && !info.model_number) {
      if (auto v = parse_uint(value); v && *v < 1u << 16) info.model_number = static_cast<std::int64_t>(*v);
    } else if (key == "physical id") {
      if (auto v = parse_uint(value); v && *v < 1u << 30) {
        phys = static_cast<long>(*v);
        any_topology = true;
      }
    } else if (key == "core id") {
      if (auto v = parse_uint(value); v && *v < 1u << 30) core = static_cast<long>(*v);
    }
  }
  flush();
  if (!info.model) info.model = std::move(hardware);
  if (any_topology && !packages.empty()) {
    info.sockets = static_cast<int>(packages.size());
    if (!cores.empty()) info.physical_cores = static_cast<int>(cores.size());
  }
  return info;
}

namespace {

// Physical cores and sockets from sysfs topology when cpuinfo lacks them (arm64, some VMs).
void topology_from_sysfs(const HostRoot& root, const std::vector<int>& cpus, CpuFacts& f) {
  std::set<std::pair<long, long>> cores;
  std::set<long> packages;
  for (int c : cpus) {
    std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";  // read through root below
    auto pkg = root.read_value(dir + "physical_package_id");
    auto core = root.read_value(dir + "core_id");
    if (!pkg || !core) return;
    auto p = parse_int(*pkg);
    auto k = parse_int(*core);
    if (!p || !k) return;
    packages.insert(*p);
    cores.emplace(*p, *k);
  }
  if (packages.empty()) return;
  const std::string src = "/sys/devices/system/cpu/cpu*/topology";  // shown in reports; reads go through root
  f.sockets = Fact<int>::of(static_cast<int>(packages.size()), src);
  f.physical_cores = Fact<int>::of(static_cast<int>(cores.size()), src);
}

Fact<std::vector<NumaNode>> read_numa_nodes(const HostRoot& root) {
  const std::string base = "/sys/devices/system/node";  // listed through root
  auto names = root.list(base);
  if (!names) return Fact<std::vector<NumaNode>>::none(names.error().describe(), base);
  std::vector<NumaNode> nodes;
  for (const auto& n : *names) {
    if (n.size() < 5 || n.compare(0, 4, "node") != 0) continue;
    auto id = parse_uint(std::string_view(n).substr(4));
    if (!id || *id > 1u << 20) continue;
    NumaNode node;
    node.id = static_cast<int>(*id);
    if (auto l = root.read_value(concat(base, "/", n, "/cpulist"))) {
      node.cpulist = *l;
      if (auto cpus = parse_cpulist(*l)) node.cpus = static_cast<int>(cpus->size());
    }
    nodes.push_back(node);
  }
  std::sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  if (nodes.empty()) return Fact<std::vector<NumaNode>>::none("no node* entries", base);
  return Fact<std::vector<NumaNode>>::of(nodes, base + "/node*/cpulist");
}

}  // namespace

CpuFacts read_cpu(const HostRoot& root) {
  CpuFacts f;
  f.collected = true;
  const std::string cpuinfo_src = "/proc/cpuinfo";  // read through root
  auto text = root.read(cpuinfo_src);
  CpuInfo info;
  if (text) {
    info = parse_cpuinfo(*text);
    f.model = info.model ? Fact<std::string>::of(*info.model, cpuinfo_src)
                         : Fact<std::string>::none("no model name in cpuinfo", cpuinfo_src);
    if (info.physical_cores) f.physical_cores = Fact<int>::of(*info.physical_cores, cpuinfo_src);
    if (info.sockets) f.sockets = Fact<int>::of(*info.sockets, cpuinfo_src);
  } else {
    f.model = Fact<std::string>::none(text.error().describe(), cpuinfo_src);
  }

  // Online CPUs: the kernel's own list is authoritative; cpuinfo counts records as a fallback.
  const std::string online_src = "/sys/devices/system/cpu/online";  // read through root
  std::vector<int> online;
  if (auto o = root.read_value(online_src)) {
    if (auto l = parse_cpulist(*o); l && !l->empty()) online = *l;
  }
  if (!online.empty()) {
    f.logical_cpus = Fact<int>::of(static_cast<int>(online.size()), online_src);
  } else if (info.processors > 0) {
    f.logical_cpus = Fact<int>::of(info.processors, cpuinfo_src);
    for (int i = 0; i < info.processors; ++i) online.push_back(i);
  } else {
    f.logical_cpus = Fact<int>::none(text ? "no processor records in cpuinfo and no readable cpu/online"
                                          : text.error().describe(),
                                     cpuinfo_src);
  }
  if (!f.physical_cores.has() && !online.empty()) topology_from_sysfs(root, online, f);
  if (!f.physical_cores.has()) f.physical_cores = Fact<int>::none("no core id in cpuinfo or sysfs topology", cpuinfo_src);
  if (!f.sockets.has()) f.sockets = Fact<int>::none("no physical id in cpuinfo or sysfs topology", cpuinfo_src);

  f.numa_nodes = read_numa_nodes(root);

  // Governors: one scaling_governor per CPU (cpuN/cpufreq links to policyM on new kernels).
  const std::string cpu_base = "/sys/devices/system/cpu";  // listed through root
  std::vector<CpuGovernor> govs;
  std::string driver;
  std::string first_error;
  if (auto names = root.list(cpu_base)) {
    for (const auto& n : *names) {
      int c = 0;
      if (!is_cpu_dir(n, c)) continue;
      auto g = root.read_value(concat(cpu_base, "/", n, "/cpufreq/scaling_governor"));
      if (!g) {
        if (first_error.empty() && g.error().kind != ErrorKind::absent) first_error = g.error().describe();
        continue;
      }
      if (!is_word(*g)) continue;
      govs.push_back({c, *g});
      if (driver.empty()) {
        auto d = root.read_value(concat(cpu_base, "/", n, "/cpufreq/scaling_driver"));
        if (d && is_word(*d)) driver = *d;
      }
    }
  } else {
    first_error = names.error().describe();
  }
  std::sort(govs.begin(), govs.end(), [](const auto& a, const auto& b) { return a.cpu < b.cpu; });
  const std::string gov_src = cpu_base + "/cpu*/cpufreq/scaling_governor";
  if (!govs.empty()) {
    f.governors = Fact<std::vector<CpuGovernor>>::of(govs, gov_src);
  } else {
    f.governors = Fact<std::vector<CpuGovernor>>::none(
        first_error.empty() ? "no cpufreq interface in sysfs: no frequency-scaling driver, usual in VMs" : first_error,
        gov_src);
  }
  if (!driver.empty()) f.scaling_driver = Fact<std::string>::of(driver, cpu_base + "/cpu*/cpufreq/scaling_driver");
  return f;
}

namespace {




}  // namespace

void collect_cpu_tables(Tables& t) {
  t.add_collector({"collect.cpu",
                                            {"CPU model, cores, sockets, NUMA nodes, frequency governors",
                                             "CPU 型号、核数、路数、NUMA 节点、调频策略"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              CpuFacts cpu = read_cpu(ctx.root);
                                              return [cpu](Facts& f) {
                                                // numa_balancing belongs to collect.sysctl: keep it.
                                                auto nb = f.host.cpu.numa_balancing;
                                                f.host.cpu = cpu;
                                                f.host.cpu.numa_balancing = nb;
                                              };
                                            }});
}

}  // namespace plumb
