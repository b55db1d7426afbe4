// `plumb check --slurm` and `plumb check --npd`: the output modes of check for the schedulers
// (Slurm's HealthCheckProgram, Kubernetes node-problem-detector). Options, validation, the hard
// time budget and the final action; the logic lives in engine/slurm_health and engine/npd_plugin.
#pragma once

#include "store/events.h"

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "engine/slurm_health.h"
#include "core/context.h"
#include "core/registry.h"
#include "report/report.h"

namespace plumb {

struct SchedulerOptions {
  bool npd = false;
  std::string layer;  // --npd only: gpu|framework|data|distributed|host
  bool slurm = false;
  std::string node;
  std::string scontrol;
  std::string slurm_conf{kDefaultSlurmConf};
  bool dry_run = false;
  double budget_s = 0;  // 0: 45 s with --slurm, none otherwise
  std::string state_dir{kDefaultStateDir};  // the agent's history, judged too when it is there
  [[nodiscard]] bool active() const { return npd || slurm; }
};

struct SchedulerRun {
  std::optional<Section> layer;
  ScontrolSetup scontrol;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};
// Validates the options (UsageError), narrows the selection to --layer, caps the collectors'
// deadline to fit the budget and starts the watchdog that ends plumb when the budget is spent.
SchedulerRun prepare_scheduler_mode(const SchedulerOptions& o, Selection& sel, Context& ctx, Lang lang);
// Prints the mode's output for the judged report and returns the exit code.
int finish_scheduler_mode(const SchedulerOptions& o, const SchedulerRun& run, const Report& r, Lang lang);
// Runs `check`; with --npd an error becomes NPD's "unknown" line on stdout (exit 2).
int run_scheduler_guarded(const SchedulerOptions& o, const std::string& lang_flag, const std::function<int()>& check);

}  // namespace plumb
