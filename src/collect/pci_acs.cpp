// ACS collector: the ACS extended capability of every bridge above a GPU or NIC.
#include "collect/pci_acs.h"

#include <map>
#include <set>

#include "collect/pci.h"
#include "core/registry.h"
#include "core/tables.h"

namespace plumb {

namespace {

std::uint16_t le16(std::string_view b, std::size_t off) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(b[off]) | (static_cast<unsigned char>(b[off + 1]) << 8));
}
std::uint32_t le32(std::string_view b, std::size_t off) {
  return static_cast<std::uint32_t>(le16(b, off)) | (static_cast<std::uint32_t>(le16(b, off + 2)) << 16);
}

constexpr std::size_t kCapPointer = 0x34;
constexpr std::size_t kPciAcsStatus = 0x06;
constexpr std::uint16_t kStatusCapList = 0x0010;
constexpr unsigned char kCapIdExp = 0x10;
constexpr std::size_t kExtStart = 0x100;

}  // namespace

std::string pcie_port_type_name(unsigned type) {
  switch (type) {
    case 0x0: return "endpoint";
    case 0x1: return "legacy endpoint";
    case 0x4: return "root port";
    case 0x5: return "switch upstream port";
    case 0x6: return "switch downstream port";
    case 0x7: return "PCIe-to-PCI bridge";
    case 0x8: return "PCI-to-PCIe bridge";
    case 0x9: return "root complex integrated endpoint";
    case 0xa: return "root complex event collector";
    default: return "type " + std::to_string(type);
  }
}

PciConfigInfo parse_pci_config(std::string_view b) {
  PciConfigInfo info;
  info.size = static_cast<int>(b.size());
  // Standard capabilities: a linked list of (id, next) bytes starting at the pointer at 0x34.
  if (b.size() >= 64 && (le16(b, kPciAcsStatus) & kStatusCapList) != 0) {
    std::size_t ptr = static_cast<unsigned char>(b[kCapPointer]) & 0xfcu;
    for (int hops = 0; ptr >= 0x40 && ptr + 4 <= b.size() && ptr < 0x100 && hops < 48; ++hops) {
      auto id = static_cast<unsigned char>(b[ptr]);
      if (id == kCapIdExp) {
        info.port_type = pcie_port_type_name((le16(b, ptr + 2) >> 4) & 0xfu);
        break;
      }
      ptr = static_cast<unsigned char>(b[ptr + 1]) & 0xfcu;
    }
  }
  if (b.size() < kExtStart + 4) return info;
  // Extended capabilities: 32-bit headers (id 15:0, version 19:16, next 31:20) from 0x100.
  info.has_acs = false;
  std::size_t off = kExtStart;
  std::set<std::size_t> seen;
  while (off >= kExtStart && off + 4 <= b.size() && seen.insert(off).second) {
    std::uint32_t h = le32(b, off);
    if (h == 0 || h == 0xffffffffu) break;
    if ((h & 0xffffu) == kExtCapAcs) {
      info.has_acs = true;
      info.acs_offset = static_cast<int>(off);
      if (off + 8 <= b.size()) {
        info.acs_cap = le16(b, off + 4);
        info.acs_ctrl = le16(b, off + 6);
      }
      break;
    }
    off = (h >> 20) & 0xffcu;
  }
  return info;
}

std::string acs_flags_text(std::uint16_t bits) {
  static const std::pair<std::uint16_t, const char*> names[] = {
      {kAcsSourceValidation, "SrcValid"},   {kAcsTranslationBlocking, "TransBlk"}, {kAcsP2pRequestRedirect, "ReqRedir"},
      {kAcsP2pCompletionRedirect, "CmpltRedir"}, {kAcsUpstreamForwarding, "UpstreamFwd"}, {kAcsP2pEgressControl, "EgressCtrl"},
      {kAcsDirectTranslatedP2p, "DirectTrans"}};
  std::string s;
  for (const auto& [bit, name] : names) s += (s.empty() ? "" : " ") + std::string(name) + ((bits & bit) != 0 ? "+" : "-");
  return s;
}

namespace {

Result<std::vector<PciAcsBridge>> read_acs(const HostRoot& root) {
  auto fns = read_pci_functions(root);
  if (!fns) return fns.error();
  std::map<std::string, std::vector<std::string>> below;  // bridge -> GPUs/NICs under it
  std::map<std::string, std::string> classes;
  for (const auto& f : *fns) {
    classes[f.bus_id] = f.class_code;
    if (!is_gpu_class(f.class_code) && !is_network_class(f.class_code)) continue;
    for (const auto& br : f.bridges) below[br].push_back(f.bus_id);
  }
  std::vector<PciAcsBridge> out;
  for (const auto& [bus, devs] : below) {
    PciAcsBridge b;
    b.bus_id = bus;
    b.class_code = classes.count(bus) != 0 ? classes[bus] : std::string();
    b.below = devs;
    auto cfg = root.read("/sys/bus/pci/devices/" + bus + "/config", 4096);
    if (cfg) {
      PciConfigInfo info = parse_pci_config(*cfg);
      b.config_bytes = info.size;
      b.port_type = info.port_type;
      b.has_acs = info.has_acs;
      b.acs_offset = info.acs_offset;
      b.acs_cap = info.acs_cap;
      b.acs_ctrl = info.acs_ctrl;
    }
    out.push_back(std::move(b));
  }
  return out;
}


}  // namespace
void collect_pci_acs_tables(Tables& t) {
  t.add_collector({"collect.pci_acs",
                                            {"PCIe ACS on the bridges above GPUs and NICs", "GPU 与网卡上游桥的 PCIe ACS"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              auto acs = Fact<std::vector<PciAcsBridge>>::from(read_acs(ctx.root), "/sys/bus/pci/devices/*/config");
                                              return [acs](Facts& f) { f.sysconfig.acs = acs; };
                                            }});
}

}  // namespace plumb
