// IOMMU collector: /proc/cmdline, /sys/class/iommu, /sys/kernel/iommu_groups and the group type
// of each GPU and NIC.
#include "collect/iommu.h"

#include "collect/pci.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

IommuCmdline parse_iommu_cmdline(std::string_view cmdline) {
  IommuCmdline c;
  // Later parameters override earlier ones, as the kernel parses them in order.
  for (auto word : split_ws(trim(cmdline))) {
    auto eq = word.find('=');
    if (eq == std::string_view::npos) continue;
    auto key = word.substr(0, eq);
    std::string value(word.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    if (key == "intel_iommu") c.intel_iommu = value;
    else if (key == "amd_iommu") c.amd_iommu = value;
    else if (key == "iommu") c.iommu = value;
    else if (key == "iommu.passthrough") c.iommu_passthrough = value;
    else if (key == "iommu.strict") c.iommu_strict = value;
  }
  return c;
}

namespace {
bool has_option(std::string_view list, std::string_view opt) {
  for (auto o : split(list, ',')) {
    if (trim(o) == opt) return true;
  }
  return false;
}
bool truthy(std::string_view v) { return v == "1" || v == "on" || v == "y" || v == "Y"; }
bool falsy(std::string_view v) { return v == "0" || v == "off" || v == "n" || v == "N"; }
}  // namespace

std::string cmdline_iommu_mode(const IommuCmdline& c) {
  if (has_option(c.intel_iommu, "off") || has_option(c.amd_iommu, "off") || c.iommu == "off") return "off";
  if (has_option(c.iommu, "pt") || truthy(c.iommu_passthrough)) return "passthrough";
  if (c.iommu == "nopt" || falsy(c.iommu_passthrough)) return "translated";
  if (has_option(c.intel_iommu, "on") || has_option(c.amd_iommu, "on") || has_option(c.amd_iommu, "force_isolation") ||
      c.iommu == "force") {
    return "translated";
  }
  return {};
}

std::string parse_iommu_group_type(std::string_view text) {
  auto t = trim(text);
  for (const char* known : {"identity", "DMA", "DMA-FQ", "unmanaged", "blocked"}) {
    if (t == known) return known;
  }
  return {};
}

namespace {

IommuFacts read_iommu(const HostRoot& root) {
  IommuFacts io;
  const std::string cmdline = "/proc/cmdline";  // read through root
  auto cmd = root.read(cmdline, 64u << 10);
  io.cmdline = cmd ? Fact<std::string>::of(std::string(trim(*cmd)), cmdline) : Fact<std::string>::none(cmd.error().describe(), cmdline);
  io.units = Fact<std::vector<std::string>>::from(root.list("/sys/class/iommu"), "/sys/class/iommu");
  auto groups = root.list("/sys/kernel/iommu_groups");
  io.groups = groups ? Fact<int>::of(static_cast<int>(groups->size()), "/sys/kernel/iommu_groups")
                     : Fact<int>::none(groups.error().describe(), "/sys/kernel/iommu_groups");
  auto fns = read_pci_functions(root);
  if (!fns) return io;
  for (const auto& f : *fns) {
    if (!is_gpu_class(f.class_code) && !is_network_class(f.class_code)) continue;
    IommuDevice d;
    d.bus_id = f.bus_id;
    d.class_code = f.class_code;
    auto link = root.read_link("/sys/bus/pci/devices/" + f.bus_id + "/iommu_group");
    if (link) {
      d.group = base_name(*link);
      auto type = root.read_value("/sys/kernel/iommu_groups/" + d.group + "/type");
      if (type) d.type = parse_iommu_group_type(*type);
    }
    io.devices.push_back(std::move(d));
  }
  return io;
}


}  // namespace
void collect_iommu_tables(Tables& t) {
  t.add_collector({"collect.iommu",
                                            {"IOMMU mode and the DMA domains of GPUs and NICs", "IOMMU 模式与 GPU/网卡的 DMA 域"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              IommuFacts io = read_iommu(ctx.root);
                                              return [io](Facts& f) { f.sysconfig.iommu = Fact<IommuFacts>::of(io, "/sys/kernel/iommu_groups"); };
                                            }});
}

}  // namespace plumb
