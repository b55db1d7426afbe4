// `plumb check` and `plumb report`: their options and their pipelines (engine/check.cpp).
#pragma once

#include <string>
#include <vector>

#include "core/collect_timing.h"
#include "core/registry.h"
#include "engine/history.h"
#include "engine/machine.h"
#include "engine/output.h"
#include "engine/scheduler.h"

namespace plumb {

// `plumb check`: what its command line says.
struct CheckOptions {
  MachineOptions machine;
  OutputOptions output;
  std::vector<std::string> only, skip;
  std::string save;
  std::string bench = "none";
  bool list = false;
  bool print_config = false;
  bool timings = false;  // --timings
  int expect_gpus = -1;  // --expect-gpus N: overrides the gpu.expected_count threshold
  HistoryOptions history;
  SchedulerOptions sched;  // --slurm, --npd
};
int run_check(const CheckOptions& a);
// The collect stage of `plumb check` (and of each `plumb agent` cycle): a new report of `command`
// with the selected collectors' facts of the machine in `ctx`.
Report collect_check_report(const Context& ctx, const Selection& sel, CollectionTimings* timings = nullptr,
                            const std::string& command = "check");

// `plumb report SNAPSHOT`: what its command line says.
struct ReportOptions {
  std::string snapshot;
  OutputOptions output;
  std::string config;
  std::vector<std::string> only, skip;
};
int run_report(const ReportOptions& a);

}  // namespace plumb
