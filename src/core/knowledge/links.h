// Link-rate and GPU-model tables (PCIe rates from Linux drivers/pci/probe.c pci_speed_string and the
// PCIe encodings; NVLink and GPU figures from NVIDIA's datasheets) and the busbw
// ceiling of a link: the figure nccl-tests' bus bandwidth is judged against.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts/comm.h"

namespace plumb {

struct GpuModel {
  std::string_view pci_device;  // "0x2330"
  std::string_view match;       // lower-case substring of the marketing name ("h100 80gb hbm3")
  std::string_view name;        // "NVIDIA H100 80GB HBM3 (SXM5)"
  int nvlink_gen = 0;           // 0: no NVLink on this form factor (bridges aside)
  int nvlinks = 0;              // links per GPU
  int pcie_gen = 0;
  int nvlink_domain = 0;        // GPUs of one multi-node NVLink domain (72 for NVL72); 0: one node
};
const GpuModel* gpu_model_by_pci_device(std::string_view device_id);
// Longest matching entry for a name such as "NVIDIA H100 80GB HBM3" or "A100-SXM-64GB".
const GpuModel* gpu_model_by_name(std::string_view name);

struct NvlinkRate {
  int gen;
  double nominal_per_link;    // GB/s per direction (NVIDIA's NVLink page)
  double effective_per_link;  // GB/s NCCL's ring model achieves per link
  int links_per_gpu;          // on the SXM/HGX boards of that generation
};
const NvlinkRate* nvlink_rate(int gen);
// NCCL's PCIe model (kvDictPciGen): x16 Gen3 12, Gen4 24, Gen5 48, Gen6 96 GB/s; width scales.
std::optional<double> pcie_effective_gbps(int gen, int width);
// Nominal per-direction PCIe rate after line encoding (PCI-SIG figures: Gen4 x16 31.5 GB/s).
std::optional<double> pcie_nominal_gbps(int gen, int width);
// "16.0 GT/s PCIe", "8 GT/s" -> generation (2.5 -> 1 ... 64 -> 6).
std::optional<int> pcie_gen_from_speed(std::string_view speed);

BusbwCeiling nvlink_ceiling(int gen, int links, const std::string& source);
BusbwCeiling pcie_ceiling(int gen, int width, const std::string& source);
// Aggregate per-node network rate in Gb/s (ring model: busbw cannot beat the NICs of one node).
BusbwCeiling network_ceiling(double node_gbit, int ports, const std::string& source);

// --link values: nvlink2..nvlink5 (optionally "x<links>"), pcie3..pcie6 (optionally "x<width>").
std::optional<BusbwCeiling> parse_link_option(std::string_view text);
std::vector<std::string> link_option_names();

}  // namespace plumb
