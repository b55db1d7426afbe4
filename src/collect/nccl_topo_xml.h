// NCCL topology XML (the NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format): written from the sysfs
// PCI tree, and read back to check a given file against this machine.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/facts/comm.h"
#include "core/result.h"

namespace plumb {

// What the <cpu> elements need beyond the PCI tree; empty fields are left out (NCCL fills them).
struct XmlCpuInfo {
  std::string arch;      // x86_64 | arm64 | ppc64
  std::string vendor;    // GenuineIntel | AuthenticAMD
  std::string familyid;  // NCCL's encoding: base + (extended << 4)
  std::string modelid;
  std::map<int, std::string> node_cpumap;  // NUMA node -> /sys/devices/system/node/nodeN/cpumap
};
// From /proc/cpuinfo: vendor_id, "cpu family" (converted to NCCL's encoding) and model.
XmlCpuInfo parse_cpuinfo_for_nccl(std::string_view cpuinfo);

// Builds the XML: one <cpu> per NUMA node, PCIe switches as nested <pci> (NCCL keeps the upstream
// port of each switch and drops root and downstream ports), GPUs with <gpu dev> (and sm, NVLinks
// when known), NICs with <nic><net name speed port>. Attributes NCCL can detect itself are left
// out so NCCL fills them on the machine. Error when the topology has no PCI functions (text input).
Result<std::string> write_nccl_topo_xml(const Topology& t, const XmlCpuInfo& cpu,
                                        const std::vector<IbPort>& ports);

// Parses a topology XML: root <system version="1">, GPUs and NICs by bus id. A <graphs> file
// (NCCL_GRAPH_FILE) or a wrong version is an error with the reason.
Result<NcclTopoXml> parse_nccl_topo_xml(std::string_view text);

}  // namespace plumb
