// Facts of the machine's wiring that sits below the frameworks: how the host name resolves
// (/etc/hosts), the IOMMU mode, PCIe ACS on the bridges above GPUs and NICs, the RDMA ports' GID
// tables, and who holds GPU memory (NVML's running processes matched against /proc).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

// One address line of /etc/hosts.
struct HostsEntry {
  int line = 0;                     // 1-based line number
  std::string address;              // "127.0.1.1", "::1", "10.0.0.5"
  std::vector<std::string> names;   // canonical name then aliases
  bool operator==(const HostsEntry&) const = default;
};
PLUMB_JSON(HostsEntry, line, address, names)

struct NameResolutionFacts {
  Fact<std::string> hostname;               // /proc/sys/kernel/hostname, else /etc/hostname
  Fact<std::vector<HostsEntry>> hosts;      // /etc/hosts
  Fact<std::string> nsswitch_hosts;         // the "hosts:" line of /etc/nsswitch.conf ("files dns")
  bool operator==(const NameResolutionFacts&) const = default;
};
PLUMB_JSON(NameResolutionFacts, hostname, hosts, nsswitch_hosts)

// The IOMMU group of one GPU or NIC and the kind of DMA domain the kernel gave it.
struct IommuDevice {
  std::string bus_id;      // "0000:3b:00.0"
  std::string class_code;  // "0x030200"
  std::string group;       // "27"; empty: the device has no group (IOMMU off)
  std::string type;        // /sys/kernel/iommu_groups/<g>/type: identity | DMA | DMA-FQ | unmanaged; empty when unreadable
  bool operator==(const IommuDevice&) const = default;
};
PLUMB_JSON(IommuDevice, bus_id, class_code, group, type)

struct IommuFacts {
  Fact<std::string> cmdline;                  // /proc/cmdline
  Fact<std::vector<std::string>> units;       // /sys/class/iommu entries (dmar0, ivhd0, smmu3.0x...)
  Fact<int> groups;                           // entries of /sys/kernel/iommu_groups
  std::vector<IommuDevice> devices;           // GPUs and NICs with their group's domain type
  bool operator==(const IommuFacts&) const = default;
};
PLUMB_JSON(IommuFacts, cmdline, units, groups, devices)

// The ACS extended capability of one PCI bridge (PCIe base spec, "ACS Extended Capability").
struct PciAcsBridge {
  std::string bus_id;                  // the bridge: "0000:3a:00.0"
  std::string class_code;              // "0x060400"
  // From the PCI Express capability's Device/Port Type: "root port", "switch upstream port",
  // "switch downstream port", "bridge" (PCIe-to-PCI and others); empty when not readable.
  std::string port_type;
  std::vector<std::string> below;      // GPUs and NICs under it
  int config_bytes = 0;                // bytes of config space the reader could read (64/256 unprivileged, 4096 as root)
  std::optional<bool> has_acs;         // nullopt: the extended space (offset 0x100+) was not readable
  int acs_offset = 0;                  // where the capability sits in config space
  std::optional<std::uint16_t> acs_cap;   // ACS Capability Register
  std::optional<std::uint16_t> acs_ctrl;  // ACS Control Register
  bool operator==(const PciAcsBridge&) const = default;
};
PLUMB_JSON(PciAcsBridge, bus_id, class_code, port_type, below, config_bytes, has_acs, acs_offset, acs_cap, acs_ctrl)

// One populated entry of an RDMA port's GID table.
struct GidEntry {
  int index = 0;
  std::string gid;    // "fe80:0000:0000:0000:0202:c9ff:fe00:0001"
  std::string type;   // "RoCE v2" | "IB/RoCE v1" | "" (unreadable)
  std::string ndev;   // gid_attrs/ndevs/<i>: the netdev (RoCE), empty on InfiniBand
  bool operator==(const GidEntry&) const = default;
};
PLUMB_JSON(GidEntry, index, gid, type, ndev)

struct GidPort {
  std::string device;       // "mlx5_0"
  int port = 1;
  std::string link_layer;   // "InfiniBand" | "Ethernet"
  int table_size = 0;       // files under gids/
  std::vector<GidEntry> gids;  // non-zero entries only; an index absent here is empty or all-zero
  bool operator==(const GidPort&) const = default;
};
PLUMB_JSON(GidPort, device, port, link_layer, table_size, gids)

// A process NVML says holds a GPU context, and what /proc says about it.
struct GpuProcessOwner {
  unsigned gpu = 0;                                // NVML index
  std::string gpu_bus_id;
  int pid = 0;
  std::optional<std::uint64_t> used_memory_bytes;  // absent when NVML says "not available"
  bool alive = false;                              // /proc/<pid>/status was readable
  std::string state;                               // status State ("Z (zombie)"), empty when gone
  std::optional<int> uid;                          // real uid from status Uid
  std::string name;                                // status Name
  std::string missing;                             // why /proc/<pid>/status could not be read
  bool operator==(const GpuProcessOwner&) const = default;
};
PLUMB_JSON(GpuProcessOwner, gpu, gpu_bus_id, pid, used_memory_bytes, alive, state, uid, name, missing)

struct GpuProcessFacts {
  Fact<std::vector<GpuProcessOwner>> processes;  // missing: NVML unavailable (why)
  std::string nvml_function;        // the variant that answered (nvmlDeviceGetComputeRunningProcesses_v3)
  int target_pid = 0;               // --pid, else plumb itself
  std::optional<int> target_uid;    // its real uid
  // plumb runs in a child PID namespace (NSpid has more than one entry): NVML reports the host's
  // pids, which /proc here cannot show.
  bool pid_namespace = false;
  bool operator==(const GpuProcessFacts&) const = default;
};
PLUMB_JSON(GpuProcessFacts, processes, nvml_function, target_pid, target_uid, pid_namespace)

struct SysConfigFacts {
  NameResolutionFacts names;
  Fact<IommuFacts> iommu;
  Fact<std::vector<PciAcsBridge>> acs;   // bridges above GPUs and NICs
  Fact<std::vector<GidPort>> gid_ports;  // missing: no /sys/class/infiniband
  GpuProcessFacts gpu_processes;
  bool operator==(const SysConfigFacts&) const = default;
};
PLUMB_JSON(SysConfigFacts, names, iommu, acs, gid_ports, gpu_processes)

}  // namespace plumb
