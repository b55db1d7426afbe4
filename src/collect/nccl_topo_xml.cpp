// NCCL topology XML writer and reader (pugixml). Element and attribute names follow NCCL's
// src/graph/xml.cc and xml.h (NVIDIA/nccl v2.30.7).
#include "collect/nccl_topo_xml.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include <pugixml.hpp>

#include "collect/cpu.h"
#include "collect/pci.h"
#include "core/knowledge/links.h"
#include "core/host_root.h"
#include "core/text.h"

namespace plumb {

XmlCpuInfo parse_cpuinfo_for_nccl(std::string_view cpuinfo) {
  CpuInfo info = parse_cpuinfo(cpuinfo);
  XmlCpuInfo c;
  c.vendor = info.vendor;
  if (info.family) {
    // /proc/cpuinfo prints base + extended; NCCL stores base + (extended << 4) (AMD Milan: 25 -> 175).
    std::int64_t fam = *info.family >= 15 ? 15 + ((*info.family - 15) << 4) : *info.family;
    c.familyid = std::to_string(fam);
  }
  if (info.model_number) c.modelid = std::to_string(*info.model_number);
  if (!c.vendor.empty()) c.arch = "x86_64";
  return c;
}

namespace {

const PciFunction* find_fn(const std::vector<PciFunction>& pci, const std::string& id) {
  for (const auto& f : pci) {
    if (f.bus_id == id) return &f;
  }
  return nullptr;
}

void set_pci_attrs(pugi::xml_node n, const PciFunction& f) {
  n.append_attribute("busid") = f.bus_id.c_str();
  n.append_attribute("class") = f.class_code.c_str();
  if (!f.vendor.empty()) n.append_attribute("vendor") = f.vendor.c_str();
  if (!f.device.empty()) n.append_attribute("device") = f.device.c_str();
  if (!f.subsystem_vendor.empty()) n.append_attribute("subsystem_vendor") = f.subsystem_vendor.c_str();
  if (!f.subsystem_device.empty()) n.append_attribute("subsystem_device") = f.subsystem_device.c_str();
  n.append_attribute("link_speed") = f.max_link_speed.c_str();
  n.append_attribute("link_width") = std::to_string(f.max_link_width.value_or(0)).c_str();
}

}  // namespace

Result<std::string> write_nccl_topo_xml(const Topology& t, const XmlCpuInfo& cpu, const std::vector<IbPort>& ports) {
  if (t.pci.empty()) {
    return make_error(ErrorKind::unsupported, "no PCI tree to describe (a topology read from text has no bus ids)");
  }
  pugi::xml_document doc;
  auto sys = doc.append_child("system");
  sys.append_attribute("version") = "1";
  std::map<int, pugi::xml_node> cpus;
  std::map<std::string, pugi::xml_node> switches;  // upstream-port bus id -> node
  auto cpu_node = [&](std::optional<int> numa) {
    int id = numa.value_or(-1);
    auto it = cpus.find(id);
    if (it != cpus.end()) return it->second;
    auto c = sys.append_child("cpu");
    c.append_attribute("numaid") = std::to_string(id).c_str();
    auto m = cpu.node_cpumap.find(id);
    if (m != cpu.node_cpumap.end() && !m->second.empty()) c.append_attribute("affinity") = m->second.c_str();
    if (!cpu.arch.empty()) c.append_attribute("arch") = cpu.arch.c_str();
    if (!cpu.vendor.empty()) c.append_attribute("vendor") = cpu.vendor.c_str();
    if (!cpu.familyid.empty()) c.append_attribute("familyid") = cpu.familyid.c_str();
    if (!cpu.modelid.empty()) c.append_attribute("modelid") = cpu.modelid.c_str();
    cpus[id] = c;
    return c;
  };
  // The parent element of a device: its switches (every other bridge, counted from the device's
  // parent's parent, i.e. the upstream ports), nested under its NUMA node's <cpu>.
  auto parent_of = [&](const PciFunction& f) {
    pugi::xml_node parent = cpu_node(f.numa_node);
    std::vector<std::string> ups;
    for (int i = static_cast<int>(f.bridges.size()) - 2; i >= 0; i -= 2) ups.push_back(f.bridges[static_cast<std::size_t>(i)]);
    std::reverse(ups.begin(), ups.end());
    for (const auto& id : ups) {
      auto it = switches.find(id);
      if (it == switches.end()) {
        auto n = parent.append_child("pci");
        if (const auto* b = find_fn(t.pci, id)) set_pci_attrs(n, *b);
        else n.append_attribute("busid") = id.c_str();
        it = switches.emplace(id, n).first;
      }
      parent = it->second;
    }
    return parent;
  };
  for (std::size_t gi = 0; gi < t.gpus.size(); ++gi) {
    const auto* f = find_fn(t.pci, t.gpus[gi].bus_id);
    if (f == nullptr) continue;
    auto p = parent_of(*f).append_child("pci");
    set_pci_attrs(p, *f);
    auto g = p.append_child("gpu");
    // dev is the NVML index (PCI bus order); NCCL sets rank itself and fills sm/gdr/NVLinks when absent.
    g.append_attribute("dev") = std::to_string(gi).c_str();
    const GpuModel* m = gpu_model_by_pci_device(f->device);
    if (m == nullptr && !t.gpus[gi].name.empty()) m = gpu_model_by_name(t.gpus[gi].name);
    static const std::map<int, int> kSm{{2, 70}, {3, 80}, {4, 90}, {5, 100}};
    if (m != nullptr && m->nvlink_gen > 0 && kSm.count(m->nvlink_gen)) {
      g.append_attribute("sm") = std::to_string(kSm.at(m->nvlink_gen)).c_str();
    }
    if (t.nvlink_known) {
      for (std::size_t gj = 0; gj < t.gpus.size(); ++gj) {
        if (gi == gj || gi >= t.nvlinks.size() || t.nvlinks[gi][gj] <= 0) continue;
        auto l = g.append_child("nvlink");
        l.append_attribute("target") = t.gpus[gj].bus_id.c_str();
        l.append_attribute("count") = std::to_string(t.nvlinks[gi][gj]).c_str();
        l.append_attribute("tclass") = "0x030200";
      }
    }
  }
  std::set<std::string> done_nic_pci;
  int net_dev = 0;
  for (const auto& nic : t.nics) {
    const auto* f = find_fn(t.pci, nic.bus_id);
    if (f == nullptr || done_nic_pci.count(f->bus_id)) continue;
    done_nic_pci.insert(f->bus_id);
    auto p = parent_of(*f).append_child("pci");
    set_pci_attrs(p, *f);
    auto nn = p.append_child("nic");
    // One <net> per port of an RDMA device; an Ethernet interface is its own net.
    bool any = false;
    for (const auto& port : ports) {
      if (port.device != nic.name) continue;
      auto n = nn.append_child("net");
      n.append_attribute("name") = nic.name.c_str();
      n.append_attribute("dev") = std::to_string(net_dev++).c_str();
      if (port.rate_gbps) n.append_attribute("speed") = std::to_string(static_cast<long long>(*port.rate_gbps * 1000)).c_str();
      n.append_attribute("port") = std::to_string(port.port).c_str();
      any = true;
    }
    if (!any) {
      auto n = nn.append_child("net");
      n.append_attribute("name") = nic.name.c_str();
      n.append_attribute("dev") = std::to_string(net_dev++).c_str();
    }
  }
  std::ostringstream os;
  doc.document_element().print(os, "  ", pugi::format_indent);
  return os.str();
}

Result<NcclTopoXml> parse_nccl_topo_xml(std::string_view text) {
  pugi::xml_document doc;
  auto res = doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!res) {
    return make_error(ErrorKind::invalid, std::string("not well-formed XML: ") + res.description() + " at offset " +
                                              std::to_string(res.offset));
  }
  auto root = doc.document_element();
  std::string rname = root.name();
  if (rname == "graphs") {
    return make_error(ErrorKind::invalid, "this is an NCCL graph file (<graphs>, read through NCCL_GRAPH_FILE), not a topology file");
  }
  if (rname != "system") return make_error(ErrorKind::invalid, "root element is <" + rname + ">, NCCL expects <system version=\"1\">");
  NcclTopoXml x;
  auto v = parse_int(root.attribute("version").value());
  if (!v) return make_error(ErrorKind::invalid, "<system> has no version attribute (NCCL needs version=\"1\")");
  x.version = static_cast<int>(*v);
  if (x.version != 1) {
    return make_error(ErrorKind::invalid, "XML topology version " + std::to_string(x.version) + ", NCCL needs 1");
  }
  // Iterative walk: a hostile file may nest deeper than the stack allows.
  std::vector<pugi::xml_node> todo{root};
  while (!todo.empty()) {
    pugi::xml_node n = todo.back();
    todo.pop_back();
    for (auto c : n.children()) {
      std::string name = c.name();
      if (name == "cpu") ++x.cpus;
      if (name == "pci") {
        std::string cls = c.attribute("class").value();
        std::string bus = c.attribute("busid").value();
        for (auto& ch : bus) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (starts_with(cls, "0x03")) x.gpu_bus_ids.push_back(bus);
        if (starts_with(cls, "0x02")) x.nic_bus_ids.push_back(bus);
      }
      if (name == "net") x.net_names.emplace_back(c.attribute("name").value());
      if (name == "nvlink") ++x.nvlinks;
      todo.push_back(c);
    }
  }
  if (x.cpus == 0) return make_error(ErrorKind::invalid, "no <cpu> element: NCCL attaches every PCI tree to a <cpu>");
  return x;
}

}  // namespace plumb
