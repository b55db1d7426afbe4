// IOMMU mode: the kernel command line, /sys/class/iommu, and the DMA domain type of the IOMMU
// group of every GPU and NIC (/sys/kernel/iommu_groups/<g>/type, Linux 5.11+).
#pragma once

#include <string>
#include <string_view>

#include "core/facts/sysconfig.h"

namespace plumb {

// The IOMMU switches of a kernel command line (Documentation/admin-guide/kernel-parameters.txt);
// each value as written ("on", "pt", "1", "on,sm_on"), empty when the parameter is absent.
struct IommuCmdline {
  std::string intel_iommu;        // intel_iommu=
  std::string amd_iommu;          // amd_iommu=
  std::string iommu;              // iommu= (x86: pt, nopt, off, force, soft, ...)
  std::string iommu_passthrough;  // iommu.passthrough= (0 | 1)
  std::string iommu_strict;       // iommu.strict=
};
IommuCmdline parse_iommu_cmdline(std::string_view cmdline);

// What the command line alone says: "passthrough" (iommu=pt, iommu.passthrough=1),
// "translated" (intel_iommu=on / amd_iommu=on without pt), "off" (intel_iommu=off, iommu=off,
// amd_iommu=off), or "" (nothing said: the kernel's build default decides).
std::string cmdline_iommu_mode(const IommuCmdline& c);

// One word of an iommu group type file: identity | DMA | DMA-FQ | unmanaged | blocked; "" when garbage.
std::string parse_iommu_group_type(std::string_view text);

}  // namespace plumb
