// PCI functions from sysfs (/sys/bus/pci/devices): class, ids, NUMA node, CPU list, link speed
// and width, and the bridge chain taken from the device symlink (as NCCL and nvidia-smi do).
#include "collect/pci.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "collect/topology.h"
#include "collect/network.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {
bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
}  // namespace

bool is_pci_bus_id(std::string_view s) {
  // dddd:bb:dd.f
  if (s.size() != 12) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (i == 4 || i == 7) {
      if (c != ':') return false;
    } else if (i == 10) {
      if (c != '.') return false;
    } else if (!is_hex(c)) {
      return false;
    }
  }
  return true;
}

std::optional<PciPlace> parse_pci_link(std::string_view target) {
  PciPlace p;
  for (auto part : split(target, '/')) {
    // Root buses are "pci0000:00"; domains of VMs can be wider ("pci10001:00" is not seen, but tolerate).
    if (part.size() >= 10 && part.substr(0, 3) == "pci" && part.find(':') != std::string_view::npos &&
        !is_pci_bus_id(part)) {
      p.host_bridge = std::string(part);
      p.chain.clear();
      continue;
    }
    if (is_pci_bus_id(part) && !p.host_bridge.empty()) p.chain.emplace_back(part);
  }
  if (p.host_bridge.empty() || p.chain.empty()) return std::nullopt;
  return p;
}

std::optional<int> parse_numa_node(std::string_view text) {
  auto v = parse_int(text);
  if (!v || *v < 0 || *v > 4096) return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<int> parse_link_width(std::string_view text) {
  text = trim(text);
  if (!text.empty() && (text.front() == 'x' || text.front() == 'X')) text.remove_prefix(1);
  auto v = parse_int(text);
  if (!v || *v < 0 || *v > 64) return std::nullopt;
  return static_cast<int>(*v);
}

bool is_gpu_class(std::string_view c) { return starts_with(c, "0x0300") || starts_with(c, "0x0302"); }
bool is_network_class(std::string_view c) { return starts_with(c, "0x02"); }
bool is_nvswitch(const PciFunction& f) { return f.vendor == "0x10de" && starts_with(f.class_code, "0x0680"); }

Result<std::vector<PciFunction>> read_pci_functions(const HostRoot& root) {
  const std::string base = "/sys/bus/pci/devices";
  auto names = root.list(base);
  if (!names) return names.error();
  std::vector<PciFunction> keep;
  std::set<std::string> bridges_needed;
  std::vector<PciFunction> all;
  for (const auto& id : *names) {
    if (!is_pci_bus_id(id)) continue;
    std::string dir = concat(base, "/", id);
    PciFunction f;
    f.bus_id = id;
    f.class_code = root.read_value(dir + "/class").value_or("");
    f.vendor = root.read_value(dir + "/vendor").value_or("");
    auto link = root.read_link(dir);
    if (link) {
      if (auto place = parse_pci_link(*link)) {
        f.host_bridge = place->host_bridge;
        place->chain.pop_back();  // the device itself
        f.bridges = place->chain;
      }
    }
    all.push_back(std::move(f));
  }
  for (const auto& f : all) {
    if ((f.vendor == "0x10de" && is_gpu_class(f.class_code)) || is_network_class(f.class_code) || is_nvswitch(f)) {
      bridges_needed.insert(f.bridges.begin(), f.bridges.end());
    }
  }
  for (auto& f : all) {
    bool wanted = (f.vendor == "0x10de" && is_gpu_class(f.class_code)) || is_network_class(f.class_code) ||
                  is_nvswitch(f) || bridges_needed.count(f.bus_id) > 0;
    if (!wanted) continue;
    std::string dir = base + "/" + f.bus_id;
    f.device = root.read_value(dir + "/device").value_or("");
    f.subsystem_vendor = root.read_value(dir + "/subsystem_vendor").value_or("");
    f.subsystem_device = root.read_value(dir + "/subsystem_device").value_or("");
    if (auto n = root.read_value(dir + "/numa_node")) f.numa_node = parse_numa_node(*n);
    f.local_cpulist = root.read_value(dir + "/local_cpulist").value_or("");
    f.local_cpus = root.read_value(dir + "/local_cpus").value_or("");
    f.cur_link_speed = root.read_value(dir + "/current_link_speed").value_or("");
    f.max_link_speed = root.read_value(dir + "/max_link_speed").value_or("");
    if (auto w = root.read_value(dir + "/current_link_width")) f.cur_link_width = parse_link_width(*w);
    if (auto w = root.read_value(dir + "/max_link_width")) f.max_link_width = parse_link_width(*w);
    keep.push_back(std::move(f));
  }
  std::sort(keep.begin(), keep.end(), [](const auto& a, const auto& b) { return a.bus_id < b.bus_id; });
  return keep;
}

namespace {
// The topology is built when facts are applied: collectors apply in id order, so the GPU layer's
// facts (collect.gpu*, collect.nvml*) are already there to name GPUs and supply NVLink data.

}  // namespace

void collect_pci_tables(Tables& t) {
  t.add_collector(
    {"collect.topology",
     {"GPU/NIC PCIe topology and NUMA affinity", "GPU/网卡 PCIe 拓扑与 NUMA 亲和性"},
     [](const Context& ctx) -> ApplyFacts {
       auto pci = read_pci_functions(ctx.root);
       auto ports = read_ib_ports(ctx.root);
       auto ifaces = read_interfaces(ctx.root);
       std::vector<NicRef> nics =
           nic_refs(ports ? *ports : std::vector<IbPort>{}, ifaces ? *ifaces : std::vector<NetIface>{});
       if (!pci) {
         auto why = pci.error().describe();
         return [why](Facts& f) { f.comm.topology = Fact<Topology>::none(why, "/sys/bus/pci/devices"); };
       }
       auto functions = *pci;
       return [functions, nics](Facts& f) {
         f.comm.collected = true;
         f.comm.topology = Fact<Topology>::of(build_topology(functions, nics, f.gpu), "/sys/bus/pci/devices");
       };
     }});
}

}  // namespace plumb
