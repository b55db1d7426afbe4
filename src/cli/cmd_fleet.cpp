// `plumb fleet`: its command line (the pipeline: engine/fleet.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/fleet.h"

namespace plumb {

CommandRun fleet_command(CLI::App& app) {
  auto a = std::make_shared<FleetOptions>();
  add_machine_options(app, a->machine);
  add_output_options(app, a->output);
  app.add_option("--only", a->only, "each rank runs only these check ids or prefixes");
  app.add_option("--skip", a->skip, "each rank skips these check ids or prefixes");
  app.add_option("--bench", a->bench, "quick|none: each rank runs the quick benchmarks too")
      ->check(CLI::IsMember({"quick", "none"}))
      ->capture_default_str();
  app.add_option("--expect-gpus", a->expect_gpus, "fail a node unless exactly N GPUs are usable")->check(CLI::Range(0, 4096));
  app.add_option("--deadline", a->deadline_s, "how long each rank's check may take: 2m, 120 (a bare number is seconds); later is 'no result: timed out'")
      ->transform(duration_in("--deadline", 1000), "DURATION")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  app.add_option("--p2p-bytes", a->p2p_bytes, "message size of the node-to-node bandwidth sweep")
      ->check(CLI::Range(1l, 1l << 30))
      ->capture_default_str();
  app.add_option("--p2p-iters", a->p2p_iters, "messages per pair in the bandwidth sweep")->check(CLI::Range(1, 10000))->capture_default_str();
  app.add_flag("--no-p2p", a->no_p2p, "skip the node-to-node network sweep");
  app.add_option("--nccl-bytes", a->nccl_bytes, "largest message of the multi-node NCCL all-reduce sweep (GPU nodes)")
      ->check(CLI::Range(1l << 20, 16l << 30))
      ->capture_default_str();
  app.add_flag("--no-nccl", a->no_nccl, "skip the multi-node NCCL all-reduce");
  CLI::App* rep = app.add_subcommand("report", "judge saved snapshots (plumb check --save) as one fleet");
  rep->add_option("snapshots", a->snapshots, "snapshot files, or directories of *.json snapshots");
  rep->add_option("--store", a->report_store, "judge the latest result of every node in this PostgreSQL fleet store, and their history");
  add_output_options(*rep, a->report_output);
  rep->add_option("--config", a->report_config, "TOML file overriding thresholds (fleet.* outlier and network rules)");
  rep->add_option("--skip", a->report_skip, "skip these fleet check ids or prefixes");
  return [a, rep] { return rep->parsed() ? run_fleet_report(*a) : run_fleet(*a); };
}

}  // namespace plumb
