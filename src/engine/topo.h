// `plumb topo`: its options and its pipeline (engine/topo.cpp).
#pragma once

#include <string>
#include <vector>

#include "engine/machine.h"
#include "engine/output.h"

namespace plumb {

struct TopoOptions {
  MachineOptions machine;
  OutputOptions output;
  std::string from_text;
  std::string nccl_xml;
  int group = 0;
};


int run_topo(const TopoOptions& a);

}  // namespace plumb
