// `plumb nccl-tests`: its options and its pipeline (engine/nccl_tests.cpp).
#pragma once

#include <string>
#include <vector>

#include "engine/machine.h"
#include "engine/output.h"

namespace plumb {

struct NcclTestsOptions {
  std::vector<std::string> logs;
  MachineOptions machine;
  OutputOptions output;
  std::string link;
  std::string topo_text;
  double net_gbps = 0;
};


int run_nccl_tests(const NcclTestsOptions& a);

}  // namespace plumb
