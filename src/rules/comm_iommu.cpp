// Distributed layer: the IOMMU mode. Translated (non-passthrough) DMA sends every GPU and NIC
// access through IOMMU page tables: GPUDirect P2P and RDMA slow down or fail ("vendor err 81"
// on a translation fault), and NCCL's troubleshooting guide asks for passthrough (iommu=pt).
#include "collect/iommu.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr const char* kCommIommuId = "l3.comm.iommu_mode";

bool translated(const std::string& type) { return type == "DMA" || type == "DMA-FQ"; }

std::vector<Finding> judge_iommu(const Facts& f, const Thresholds& /*th*/) {
  const auto& io = f.sysconfig.iommu;
  if (!io.has()) return {skipped(kCommIommuId, io.why())};
  Finding out;
  out.id = kCommIommuId;
  std::string cmd_mode;
  if (io->cmdline.has()) {
    out.add("kernel command line", *io->cmdline, io->cmdline.source);
    cmd_mode = cmdline_iommu_mode(parse_iommu_cmdline(*io->cmdline));
  }
  if (io->units.has()) out.add("IOMMU units", io->units->empty() ? "none" : join(*io->units, ", "), io->units.source);
  if (io->groups.has()) out.add("IOMMU groups", std::to_string(*io->groups), io->groups.source);
  int dma = 0;
  int identity = 0;
  int unmanaged = 0;
  std::string translated_list;
  for (const auto& d : io->devices) {
    if (d.group.empty()) continue;
    out.add("group of " + d.bus_id + " (" + d.class_code + ")", d.group + (d.type.empty() ? "" : ", type " + d.type),
            "/sys/kernel/iommu_groups/" + d.group + "/type");
    if (translated(d.type)) {
      ++dma;
      translated_list += (translated_list.empty() ? "" : ", ") + d.bus_id;
    }
    if (d.type == "identity") ++identity;
    if (d.type == "unmanaged") ++unmanaged;
  }
  bool devices = !io->devices.empty();
  out.arg("cmdline_mode", cmd_mode.empty() ? "not set" : cmd_mode).arg("devices", translated_list);
  out.threshold = "GPU and NIC DMA in passthrough (identity) domains, or no IOMMU";
  if (dma > 0) {
    out.status = Status::warn;
    out.arg("count", std::to_string(dma));
    return {out};
  }
  if (identity > 0) {
    out.status = Status::pass;
    out.variant = "passthrough";
    return {out};
  }
  if (unmanaged > 0) {
    out.status = Status::info;
    out.variant = "vfio";
    out.arg("count", std::to_string(unmanaged));
    return {out};
  }
  bool no_units = io->units.has() && io->units->empty();
  bool no_groups = io->groups.has() && *io->groups == 0;
  if ((no_units && (no_groups || !io->groups.has())) || cmd_mode == "off") {
    out.status = Status::pass;
    out.variant = "off";
    return {out};
  }
  if (cmd_mode == "passthrough") {
    out.status = Status::pass;
    out.variant = "passthrough_cmdline";
    return {out};
  }
  if (cmd_mode == "translated") {
    out.status = devices ? Status::warn : Status::info;
    out.variant = "translated_cmdline";
    return {out};
  }
  if (!io->cmdline.has() && !io->groups.has() && !io->units.has()) {
    return {skipped(kCommIommuId, "neither /proc/cmdline nor /sys/class/iommu nor /sys/kernel/iommu_groups is readable: " + io->cmdline.why())};
  }
  out.status = Status::info;
  out.variant = "unknown";
  return {out};
}



}  // namespace
void rules_comm_iommu_tables(Tables& t) {
  t.add_findings([] {
  return std::vector<CatalogEntry>{{
    kCommIommuId, Layer::L3, Pillar::comm, Section::distributed,
    {"IOMMU mode for GPU and NIC DMA", "GPU 与网卡 DMA 的 IOMMU 模式"},
    {
        {"warn", {"{count} GPU/NIC functions sit in translated IOMMU domains (DMA, not identity: {devices}; command line: "
                  "{cmdline_mode}): every peer-to-peer and RDMA access is remapped by the IOMMU, which slows or breaks "
                  "GPUDirect P2P/RDMA (NCCL hangs, IB 'vendor err 81')",
                  "{count} 个 GPU/网卡功能位于地址转换型 IOMMU 域（DMA 而非 identity：{devices}；内核命令行：{cmdline_mode}）："
                  "所有点对点与 RDMA 访问都经 IOMMU 重映射，会拖慢或破坏 GPUDirect P2P/RDMA（NCCL 挂起、IB 'vendor err 81'）"}},
        {"translated_cmdline", {"the kernel command line turns the IOMMU on without passthrough ({cmdline_mode}): GPU and NIC "
                                "DMA is translated, which slows or breaks GPUDirect P2P/RDMA",
                                "内核命令行开启了 IOMMU 但未设直通（{cmdline_mode}）：GPU 与网卡的 DMA 经地址转换，"
                                "会拖慢或破坏 GPUDirect P2P/RDMA"}},
        {"passthrough", {"GPU/NIC DMA uses passthrough (identity) IOMMU domains", "GPU/网卡 DMA 使用直通（identity）IOMMU 域"}},
        {"passthrough_cmdline", {"the kernel command line sets IOMMU passthrough", "内核命令行设置了 IOMMU 直通"}},
        {"off", {"no IOMMU is active: DMA is not translated", "未启用 IOMMU：DMA 不经地址转换"}},
        {"vfio", {"{count} GPU/NIC functions are in unmanaged (VFIO) domains: assigned to a virtual machine or user-space "
                  "driver", "{count} 个 GPU/网卡功能位于 unmanaged（VFIO）域：已分配给虚拟机或用户态驱动"}},
        {"unknown", {"an IOMMU is present but the mode is not visible here (no group types before Linux 5.11, nothing on the "
                     "command line): the kernel's build default decides (CONFIG_IOMMU_DEFAULT_PASSTHROUGH)",
                     "存在 IOMMU，但此处看不到其模式（Linux 5.11 之前没有组类型，命令行也未设置）：由内核编译默认值决定"
                     "（CONFIG_IOMMU_DEFAULT_PASSTHROUGH）"}},
    },
    {"Add iommu=pt to the kernel command line (GRUB_CMDLINE_LINUX in /etc/default/grub, then update-grub or "
     "grub2-mkconfig, and reboot); keep intel_iommu=on / amd_iommu=on only where VMs or VFIO need isolation",
     "在内核命令行加入 iommu=pt（/etc/default/grub 的 GRUB_CMDLINE_LINUX，随后 update-grub 或 grub2-mkconfig 并重启）；"
     "仅在虚拟机或 VFIO 需要隔离时保留 intel_iommu=on / amd_iommu=on"},
    "cat /proc/cmdline; cat /sys/kernel/iommu_groups/*/type | sort | uniq -c",
    {"GPU peer-to-peer and GPUDirect RDMA at full PCIe bandwidth, no translation faults",
     "GPU 点对点与 GPUDirect RDMA 恢复满 PCIe 带宽，不再出现地址转换错误"},
    {"l2.comm.allreduce_slow", "l2.bench.allreduce", "l2.bench.d2d"},
}};
});
  t.add_rule({kCommIommuId, {"collect.iommu"}, judge_iommu});
}

}  // namespace plumb
