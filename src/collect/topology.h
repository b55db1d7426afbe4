// The GPU/NIC topology fact: nvidia-smi-style levels from the sysfs PCI tree, NVLink counts from
// NVML's per-link data.
#pragma once

#include <string>
#include <vector>

#include "core/facts/comm.h"
#include "core/facts/gpu.h"

namespace plumb {

// PIX, PXB, PHB, NODE or SYS between two PCI functions, as nvidia-smi topo -m defines them:
// different root buses -> NODE (same NUMA node) or SYS; same root bus but different root ports
// -> PHB; below a shared root port -> PIX when the path crosses at most one switch, else PXB.
std::string pcie_level(const PciFunction& a, const PciFunction& b);

// A NIC as the topology sees it: an RDMA device (mlx5_0) or a physical Ethernet interface.
struct NicRef {
  std::string name;
  std::string bus_id;
  std::string kind;  // ib | roce | eth
};

// Builds the device matrix from PCI functions (GPUs in bus order, then the NICs given).
// GPU names come from the GPU facts when they list the bus id, else from the PCI device id.
Topology build_topology(const std::vector<PciFunction>& pci, const std::vector<NicRef>& nics, const GpuFacts& gpu);

// Fills nvlinks[][] from NVML's per-link data in GpuFacts (nvlink_peers): direct GPU-GPU links
// counted per pair, links to an NVSwitch counted for every pair on the fabric; sets nvlink_known when
// every GPU of the matrix answered. GPUs NVML does not list keep their PCIe-only cells.
void merge_nvml_links(Topology& topo, const GpuFacts& gpu);

}  // namespace plumb
