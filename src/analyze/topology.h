// GPU/NIC topology: nvidia-smi-style levels from the sysfs PCI tree, the `nvidia-smi topo -m`
// text parser, close-GPU groups and CUDA_VISIBLE_DEVICES resolution.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/topology.h"
#include "core/facts/comm.h"
#include "core/facts/gpu.h"
#include "core/result.h"

namespace plumb {

// Parses a saved `nvidia-smi topo -m` output: tab- or space-separated, with or without the
// leading tab, NIC rows/columns with or without the NIC Legend, trailing spaces, CRLF.
Result<Topology> parse_topo_text(std::string_view text);

// The cell nvidia-smi would print for devices i and j ("X", "NV12", "PIX", ...).
std::string topo_cell(const Topology& t, std::size_t i, std::size_t j);
// Cost of a link for grouping: lower is closer. NV# < PIX < PXB < PHB < NODE < SYS.
int link_cost(const std::string& cell);

struct GpuGroup {
  std::vector<int> gpus;  // indices into Topology::gpus
  std::string worst;      // the worst pair's cell ("NV18", "PHB", "SYS")
  int worst_cost = 0;
  int worst_pcie_cost = 0;
  int sum_cost = 0;
  bool operator==(const GpuGroup&) const = default;
};
// How good a given set is.
GpuGroup score_group(const Topology& t, const std::vector<int>& gpus);
// The k-GPU sets with the best worst-pair link (ties broken by PCIe distance, then the sum),
// a disjoint cover first. Empty when k < 1 or k > number of GPUs.
// Bounded work: every k-subset is tried when there are at most kMaxSubsets of them and scoring
// them all takes at most kMaxPairScores GPU-pair scores; otherwise sets are grown greedily from
// each GPU until that many pair scores are spent, the best found is returned and *cut is set.
inline constexpr std::size_t kMaxSubsets = 500000;
inline constexpr std::size_t kMaxPairScores = 4000000;
std::vector<GpuGroup> close_groups(const Topology& t, int k, std::size_t max_groups = 16, bool* cut = nullptr);
// "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1,2,3"
std::string visible_devices_value(const std::vector<int>& gpus);

// Resolves a CUDA_VISIBLE_DEVICES value to GPU indices of the topology: integers (PCI bus order),
// GPU-UUID prefixes through the GPU facts. Errors name the entry that does not resolve.
Result<std::vector<int>> resolve_visible_devices(std::string_view value, const Topology& t, const GpuFacts& gpu);

}  // namespace plumb
