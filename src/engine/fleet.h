// `plumb fleet`: its options and its pipelines (engine/fleet.cpp).
#pragma once

#include <string>
#include <vector>

#include "engine/machine.h"
#include "engine/output.h"
#include "engine/history.h"

namespace plumb {

struct FleetOptions {
  MachineOptions machine;
  OutputOptions output;
  std::vector<std::string> only, skip;
  std::string bench = "none";
  int expect_gpus = -1;
  int deadline_s = 120;
  long p2p_bytes = 4l << 20;
  int p2p_iters = 20;
  bool no_p2p = false;
  long nccl_bytes = 1l << 30;
  bool no_nccl = false;
  // fleet report
  std::vector<std::string> snapshots;
  OutputOptions report_output;
  std::string report_config;
  std::vector<std::string> report_skip;
  std::string report_store;  // --store: judge the fleet store's nodes instead of snapshot files
};


int run_fleet(const FleetOptions& a);
int run_fleet_report(const FleetOptions& a);

}  // namespace plumb
