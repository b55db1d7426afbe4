// Facts `plumb topo` adds to the topology (facts.comm.topology): the closest sets of K GPUs it
// proposes, each with the CUDA_VISIBLE_DEVICES value that selects it, and the NCCL XML it wrote.
#pragma once

#include <string>
#include <vector>

#include "core/json_fwd.h"

namespace plumb {

struct TopoGroupFacts {
  std::vector<int> gpus;             // indices into comm.topology.gpus
  std::string labels;                // "GPU0,GPU1,GPU2,GPU3"
  std::string worst;                 // the worst pair's link ("NV18", "PHB", "SYS")
  std::string cuda_visible_devices;  // "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1,2,3"
  bool operator==(const TopoGroupFacts&) const = default;
};
PLUMB_JSON(TopoGroupFacts, gpus, labels, worst, cuda_visible_devices)

struct TopoFacts {
  bool collected = false;  // only `plumb topo` fills this area
  int group_size = 0;      // --group K (0: not asked)
  std::vector<TopoGroupFacts> groups;
  bool groups_cut = false;  // too many sets to try them all: the best sets found in the search budget
  std::string nccl_xml;    // the NCCL topology file written (--nccl-xml), if any
  bool operator==(const TopoFacts&) const = default;
};
PLUMB_JSON(TopoFacts, collected, group_size, groups, groups_cut, nccl_xml)

}  // namespace plumb
