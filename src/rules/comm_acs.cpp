// Distributed layer: PCIe ACS redirection on the bridges above GPUs and NICs. With P2P Request or
// Completion Redirect (or Egress Control) enabled, peer-to-peer traffic that could turn around in
// a PCIe switch is sent up to the root complex instead: slow P2P, and NCCL hangs or IB
// "vendor err 81" where the root complex or IOMMU does not forward it. NCCL's troubleshooting
// guide asks for ACS to be disabled on bare-metal GPU/NIC machines.
#include <algorithm>

#include "collect/pci_acs.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr const char* kCommAcsId = "l3.comm.pcie_acs";
constexpr std::uint16_t kRedirectBits = kAcsP2pRequestRedirect | kAcsP2pCompletionRedirect | kAcsP2pEgressControl;

std::string hex16(std::uint16_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 12; shift >= 0; shift -= 4) s += digits[(v >> shift) & 0xf];
  return s;
}

std::vector<Finding> judge_acs(const Facts& f, const Thresholds& /*th*/) {
  const auto& acs = f.sysconfig.acs;
  if (!acs.has()) return {skipped(kCommAcsId, acs.why())};
  if (acs->empty()) {
    Finding none;
    none.id = kCommAcsId;
    none.status = Status::info;
    none.variant = "no_bridges";
    none.add("bridges above GPUs/NICs", "none", acs.source);
    return {none};
  }
  std::vector<Finding> bad;
  int readable = 0;
  int with_acs = 0;
  std::string short_reads;
  Finding ok;
  ok.id = kCommAcsId;
  ok.threshold = "ACSCtl ReqRedir- CmpltRedir- EgressCtrl- on every bridge above a GPU or NIC";
  for (const auto& b : *acs) {
    std::string src = "/sys/bus/pci/devices/" + b.bus_id + "/config";
    if (!b.has_acs) {
      short_reads += (short_reads.empty() ? "" : ", ") + b.bus_id + " (" + std::to_string(b.config_bytes) + " bytes)";
      continue;
    }
    ++readable;
    if (!*b.has_acs || !b.acs_ctrl) {
      ok.add(b.bus_id + " " + b.port_type, "no ACS capability", src);
      continue;
    }
    ++with_acs;
    std::uint16_t ctrl = *b.acs_ctrl;
    std::string flags = "ACSCtl " + acs_flags_text(ctrl) + " (" + hex16(ctrl) + " at " + hex16(static_cast<std::uint16_t>(b.acs_offset + 6)) + ")";
    if ((ctrl & kRedirectBits) == 0) {
      ok.add(b.bus_id + " " + b.port_type, flags, src);
      continue;
    }
    Finding x;
    x.id = kCommAcsId;
    x.subject = "bridge " + b.bus_id;
    x.threshold = ok.threshold;
    x.add("ACS control", flags, src);
    if (b.acs_cap) x.add("ACS capability", "ACSCap " + acs_flags_text(*b.acs_cap), src);
    x.add("port type", b.port_type.empty() ? "unknown" : b.port_type, src);
    x.add("devices below", join(b.below, ", "), "/sys/bus/pci/devices");
    x.arg("bridge", b.bus_id).arg("port", b.port_type.empty() ? "bridge" : b.port_type).arg("flags", acs_flags_text(ctrl));
    x.arg("below", join(b.below, ", "));
    // In a switch, redirection sends traffic that would turn around in the switch up to the root
    // complex; on a root port it only affects peers under other root ports, which go through the
    // root complex anyway, so it matters less.
    bool switch_port = b.port_type.find("switch") != std::string::npos;
    x.status = switch_port || b.port_type.empty() ? Status::fail : Status::warn;
    x.variant = switch_port || b.port_type.empty() ? "fail" : "root_port";
    bad.push_back(std::move(x));
  }
  if (!bad.empty()) return bad;
  if (readable == 0) {
    bool none_read = std::all_of(acs->begin(), acs->end(), [](const PciAcsBridge& b) { return b.config_bytes == 0; });
    if (none_read) return {skipped(kCommAcsId, "no bridge's PCI configuration space could be read (" + short_reads + ")")};
    return {skipped(kCommAcsId, "the PCI extended configuration space (offset 0x100 and up) is readable by root only; plumb read " +
                             short_reads + ": run plumb as root, or check with `sudo lspci -vvv | grep ACSCtl`")};
  }
  ok.status = Status::pass;
  ok.arg("bridges", std::to_string(readable)).arg("with_acs", std::to_string(with_acs));
  ok.arg("unread", short_reads.empty() ? "none" : short_reads);
  ok.variant = short_reads.empty() ? "pass" : "partial";
  if (!short_reads.empty()) ok.status = Status::info;
  return {ok};
}



}  // namespace
void rules_comm_acs_tables(Tables& t) {
  t.add_findings([] {
  return std::vector<CatalogEntry>{{
    kCommAcsId, Layer::L3, Pillar::comm, Section::distributed,
    {"PCIe ACS redirection between GPUs and NICs", "GPU 与网卡之间的 PCIe ACS 重定向"},
    {
        {"pass", {"no P2P redirection on the {bridges} bridges above GPUs and NICs ({with_acs} have ACS, all with "
                  "ReqRedir- CmpltRedir- EgressCtrl-)",
                  "GPU 与网卡上游的 {bridges} 个桥均无 P2P 重定向（{with_acs} 个具备 ACS，均为 ReqRedir- CmpltRedir- EgressCtrl-）"}},
        {"partial", {"no P2P redirection on the {bridges} bridges plumb could read; not readable without root: {unread}",
                     "plumb 能读取的 {bridges} 个桥均无 P2P 重定向；以下桥需 root 才能读取：{unread}"}},
        {"no_bridges", {"no PCI bridge above a GPU or NIC", "GPU 与网卡之上没有 PCI 桥"}},
        {"fail", {"ACS redirects peer-to-peer traffic on {port} {bridge} above {below} ({flags}): GPU-GPU and GPU-NIC "
                  "transfers go up to the root complex instead of turning in the switch (slow P2P, NCCL hangs, IB "
                  "'vendor err 81' with GPUDirect RDMA)",
                  "{port} {bridge}（其下为 {below}）上的 ACS 会重定向点对点流量（{flags}）：GPU 之间及 GPU 与网卡之间的传输"
                  "被送往根复合体而不是在交换芯片内转发（P2P 变慢、NCCL 挂起、GPUDirect RDMA 报 IB 'vendor err 81'）"}},
        {"root_port", {"ACS redirection is on at {port} {bridge} above {below} ({flags}): peer traffic to devices under "
                       "other root ports is checked by the root complex; harmless for P2P inside a switch, but a sign "
                       "the platform enables ACS (check the switch ports too)",
                       "{port} {bridge}（其下为 {below}）开启了 ACS 重定向（{flags}）：发往其他根端口下设备的点对点流量"
                       "由根复合体检查；对交换芯片内的 P2P 无害，但说明平台启用了 ACS（请同时检查交换芯片端口）"}},
    },
    {"Disable ACS in the BIOS (often 'PCIe ACS control' or 'ACS Enable') or clear it at boot: "
     "sudo setpci -s {bridge} ECAP_ACS+0x6.w=0000 for each bridge (NCCL troubleshooting guide, 'PCI Access Control "
     "Services'); in VMs that need isolation, keep ACS and use ATS with Direct Translated P2P instead",
     "在 BIOS 中关闭 ACS（常见名称为 'PCIe ACS control' 或 'ACS Enable'），或在开机时清除："
     "对每个桥执行 sudo setpci -s {bridge} ECAP_ACS+0x6.w=0000（NCCL 故障排查指南 'PCI Access Control Services'）；"
     "需要隔离的虚拟机中保留 ACS，改用 ATS 与 Direct Translated P2P"},
    "sudo lspci -vvv | grep -E '^[0-9a-f]|ACSCtl'",
    {"GPU peer-to-peer and GPUDirect RDMA turn inside the PCIe switch again: full P2P bandwidth, no redirect hangs",
     "GPU 点对点与 GPUDirect RDMA 重新在 PCIe 交换芯片内转发：恢复满 P2P 带宽，不再因重定向挂起"},
    {"l2.comm.allreduce_slow", "l2.bench.allreduce", "l2.bench.d2d"},
}};
});
  t.add_rule({kCommAcsId, {"collect.pci_acs"}, judge_acs});
}

}  // namespace plumb
