// Facts of the distributed layer: PCI topology of GPUs and NICs, RDMA ports, network
// interfaces, firewall hints, the NCCL/torch.distributed environment, NCCL topology files and
// nccl-tests results.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

// One PCI function read from sysfs (/sys/bus/pci/devices/<bus id>).
struct PciFunction {
  std::string bus_id;       // "0000:3b:00.0"
  std::string host_bridge;  // "pci0000:00": the root bus the function hangs from
  std::vector<std::string> bridges;  // bus ids of the bridges above it, root port first
  std::string class_code;   // "0x030200"
  std::string vendor;       // "0x10de"
  std::string device;       // "0x2330"
  std::string subsystem_vendor;
  std::string subsystem_device;
  std::optional<int> numa_node;  // missing when sysfs says -1 or cannot be read
  std::string local_cpulist;     // "0-31,64-95"
  std::string local_cpus;        // mask "00000000,ffffffff"
  std::string cur_link_speed;    // "16.0 GT/s PCIe"
  std::string max_link_speed;
  std::optional<int> cur_link_width;
  std::optional<int> max_link_width;
  bool operator==(const PciFunction&) const = default;
};
PLUMB_JSON(PciFunction, bus_id, host_bridge, bridges, class_code, vendor, device, subsystem_vendor, subsystem_device,
           numa_node, local_cpulist, local_cpus, cur_link_speed, max_link_speed, cur_link_width, max_link_width)

struct TopoGpu {
  std::string label;   // "GPU0": index in PCI bus order (nvidia-smi's order)
  std::string bus_id;  // empty when parsed from text
  std::string name;    // model when known
  std::string cpulist;
  std::optional<int> numa_node;
  bool operator==(const TopoGpu&) const = default;
};
PLUMB_JSON(TopoGpu, label, bus_id, name, cpulist, numa_node)

struct TopoNic {
  std::string label;   // "NIC0"
  std::string name;    // "mlx5_0" or "eth0"
  std::string bus_id;
  std::string kind;    // "ib" | "roce" | "eth" | "" (unknown, from text)
  std::string cpulist;
  std::optional<int> numa_node;
  bool operator==(const TopoNic&) const = default;
};
PLUMB_JSON(TopoNic, label, name, bus_id, kind, cpulist, numa_node)

// The machine's device graph as nvidia-smi topo -m shows it. Devices are the GPUs then the NICs;
// pcie[i][j] is X, PIX, PXB, PHB, NODE or SYS; nvlinks[i][j] the bonded NVLink count (0 none).
struct Topology {
  std::string source;  // "/sys/bus/pci/devices" | "nvidia-smi topo -m text: FILE"
  std::vector<TopoGpu> gpus;
  std::vector<TopoNic> nics;
  std::vector<std::vector<std::string>> pcie;
  std::vector<std::vector<int>> nvlinks;
  bool nvlink_known = false;     // NVLink counts were read (topo text or NVML), not just assumed absent
  int nvswitch_count = 0;        // NVIDIA bridge-class (0x0680) functions on the PCI bus
  std::vector<PciFunction> pci;  // GPUs, NICs, NVSwitches and every bridge above them (sysfs only)
  bool operator==(const Topology&) const = default;
};
PLUMB_JSON(Topology, source, gpus, nics, pcie, nvlinks, nvlink_known, nvswitch_count, pci)

struct IbPort {
  std::string device;      // "mlx5_0"
  int port = 1;
  std::string state;       // "4: ACTIVE"
  std::string phys_state;  // "5: LinkUp"
  std::string rate;        // "200 Gb/sec (4X HDR)"
  std::optional<double> rate_gbps;
  std::string link_layer;  // "InfiniBand" | "Ethernet"
  std::string bus_id;
  bool operator==(const IbPort&) const = default;
};
PLUMB_JSON(IbPort, device, port, state, phys_state, rate, rate_gbps, link_layer, bus_id)

struct NetIface {
  std::string name;
  std::string operstate;           // "up" | "down" | "unknown"
  std::optional<int> speed_mbps;   // missing when the driver reports -1 or nothing
  std::optional<int> mtu;
  std::string bus_id;              // empty for virtual interfaces (lo, docker0, veth)
  bool operator==(const NetIface&) const = default;
};
PLUMB_JSON(NetIface, name, operstate, speed_mbps, mtu, bus_id)

// A firewall configuration file plumb could read (rules themselves need root to list).
struct FirewallConfig {
  std::string tool;          // nftables | iptables | ufw | firewalld
  std::string path;          // "/etc/nftables.conf"
  std::string input_policy;  // "drop" | "accept" | "" (not stated)
  bool enabled = true;       // ufw ENABLED=no says false
  bool operator==(const FirewallConfig&) const = default;
};
PLUMB_JSON(FirewallConfig, tool, path, input_policy, enabled)

struct FirewallFacts {
  // Netfilter modules loaded (/proc/modules): nf_tables, ip_tables, iptable_filter, ...
  Fact<std::vector<std::string>> modules;
  std::vector<FirewallConfig> configs;
  Fact<std::string> port_range;  // /proc/sys/net/ipv4/ip_local_port_range, "32768 60999"
  bool operator==(const FirewallFacts&) const = default;
};
PLUMB_JSON(FirewallFacts, modules, configs, port_range)

// What an NCCL topology XML file says (NCCL_TOPO_FILE or `plumb topo --nccl-xml` output).
struct NcclTopoXml {
  int version = 0;
  int cpus = 0;
  std::vector<std::string> gpu_bus_ids;  // <pci> with a GPU class (0x03....)
  std::vector<std::string> nic_bus_ids;  // <pci> with a network class (0x02....)
  std::vector<std::string> net_names;    // <net name="mlx5_0">
  int nvlinks = 0;                       // <nvlink> elements
  bool operator==(const NcclTopoXml&) const = default;
};
PLUMB_JSON(NcclTopoXml, version, cpus, gpu_bus_ids, nic_bus_ids, net_names, nvlinks)

// One data row of an nccl-tests table. Values missing when printed as N/A or absent.
struct NcclTestsRow {
  std::uint64_t size = 0;
  std::uint64_t count = 0;
  std::string type;
  std::string redop;
  std::optional<double> oop_time_us, oop_algbw, oop_busbw, ip_time_us, ip_algbw, ip_busbw;
  std::optional<double> oop_wrong, ip_wrong;
  bool operator==(const NcclTestsRow&) const = default;
};
PLUMB_JSON(NcclTestsRow, size, count, type, redop, oop_time_us, oop_algbw, oop_busbw, ip_time_us, ip_algbw, ip_busbw,
           oop_wrong, ip_wrong)

// The bandwidth one run is judged against: the bottleneck link's busbw ceiling.
struct BusbwCeiling {
  double gbps = 0;           // GB/s (1e9 B/s): the nominal per-direction rate of the link (vendor figure)
  std::string link;          // "NVLink4 x18", "PCIe Gen4 x16", "network 4 x 200 Gb/s"
  std::string formula;       // "18 links x 25 GB/s per direction"
  std::string source;        // where the link came from: --link, topology, GPU model in the log
  double expected = 0;       // GB/s NCCL achieves on that link (its ring model); <= gbps
  bool assumed = false;      // the link (type, count, model or NIC rate) was guessed, not read
  std::string path;          // what the run crosses: "intra-node", "NVLink domain", "network"
  bool operator==(const BusbwCeiling&) const = default;
};
PLUMB_JSON(BusbwCeiling, gbps, link, formula, source, expected, assumed, path)

struct NcclTestsRun {
  std::string origin;        // file name
  std::string collective;    // "all_reduce_perf" when stated, else guessed from redop
  std::optional<int> ranks;  // from the device lines
  int hosts = 0;             // hosts: distinct host names, or ranks / ranks per host when the list is elided
  int hosts_listed = 0;      // distinct host names in the device lines
  bool mnnvl = false;        // NCCL INFO "MNNVL 1": the ranks share a multi-node NVLink domain
  std::vector<std::string> gpu_names;
  std::vector<NcclTestsRow> rows;
  std::optional<std::int64_t> out_of_bounds;
  std::optional<double> avg_busbw;  // nccl-tests' own "Avg bus bandwidth" (every size)
  bool header_seen = false;
  bool footer_seen = false;
  bool truncated = false;           // no footer after the table: the run did not finish
  std::string nccl_version;
  Fact<BusbwCeiling> ceiling;       // filled by the caller that knows the machine
  bool operator==(const NcclTestsRun&) const = default;
};
PLUMB_JSON(NcclTestsRun, origin, collective, ranks, hosts, hosts_listed, mnnvl, gpu_names, rows, out_of_bounds, avg_busbw, header_seen,
           footer_seen, truncated, nccl_version, ceiling)

struct CommFacts {
  bool collected = false;
  Fact<Topology> topology;
  Fact<std::vector<IbPort>> ib_ports;     // missing: /sys/class/infiniband absent (no RDMA stack)
  Fact<std::vector<NetIface>> interfaces;
  FirewallFacts firewall;
  // NCCL_*, TORCH_NCCL_*, TORCH_DISTRIBUTED_*, CUDA_VISIBLE_DEVICES, ... of the target process.
  Fact<std::map<std::string, std::string>> env;
  Fact<std::map<std::string, std::string>> nccl_conf;  // /etc/nccl.conf VAR=value lines
  Fact<NcclTopoXml> topo_file;  // the file NCCL_TOPO_FILE names; missing with why
  std::vector<NcclTestsRun> nccl_tests;
  bool operator==(const CommFacts&) const = default;
};
PLUMB_JSON(CommFacts, collected, topology, ib_ports, interfaces, firewall, env, nccl_conf, topo_file, nccl_tests)

}  // namespace plumb
