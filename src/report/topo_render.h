// Text rendering of the GPU/NIC topology: the matrix and affinity columns in nvidia-smi's layout.
#pragma once

#include <string>

#include "core/facts/comm.h"

namespace plumb {

// The matrix and the affinity columns in nvidia-smi's layout, then the NIC legend.
struct TopoWords {
  std::string cpu_affinity = "CPU Affinity";
  std::string numa_affinity = "NUMA Affinity";
  std::string nic_legend = "NIC Legend";
};
std::string render_topo_matrix(const Topology& t, const TopoWords& words);

}  // namespace plumb
