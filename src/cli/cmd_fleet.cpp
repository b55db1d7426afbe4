// `plumb fleet`: the health check across a cluster. Under an MPI launcher (mpirun, srun) each
// rank runs the companion `plumb-fleet` found next to this executable, which runs `plumb check`
// on its node and gathers the snapshots on rank 0; `plumb fleet report SNAPSHOT...|DIR` judges
// saved snapshots offline. This binary never links MPI, so it starts on machines without it.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>
#include <filesystem>
#include <memory>

#include "apps/fleet_report.h"
#include "cli/check_options.h"
#include "cli/subcommand.h"
#include "core/host_root.h"
#include "core/subprocess.h"

namespace plumb {

namespace {

struct FleetArgs {
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
};

// Environment variables that MPI launchers set in every rank (Open MPI, PMIx under srun or
// prterun, MPICH's Hydra and Intel MPI's PMI).
bool under_mpi_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"}) {
    if (std::getenv(v) != nullptr) return true;  // NOLINT(concurrency-mt-unsafe): read before any thread starts
  }
  return false;
}

// The rank's `plumb check` arguments, rebuilt from the parsed options (only what was given).
std::vector<std::string> check_args(const FleetArgs& a) {
  const MachineOptions& m = a.machine;
  std::vector<std::string> v{"--root", m.root, "--timeout", std::to_string(m.timeout_ms), "--bench", a.bench};
  if (m.pid > 0) v.insert(v.end(), {"--pid", std::to_string(m.pid)});
  if (!m.kmsg.empty()) v.insert(v.end(), {"--kmsg", m.kmsg});
  for (const auto& d : m.data) v.insert(v.end(), {"--data", d});
  if (!m.nvml_lib.empty()) v.insert(v.end(), {"--nvml-lib", m.nvml_lib});
  if (!m.python.empty()) v.insert(v.end(), {"--python", m.python});
  if (m.cuda_context != "idle") v.insert(v.end(), {"--cuda-context", m.cuda_context});
  if (!m.config.empty()) v.insert(v.end(), {"--config", m.config});
  for (const auto& o : a.only) v.insert(v.end(), {"--only", o});
  for (const auto& s : a.skip) v.insert(v.end(), {"--skip", s});
  if (a.expect_gpus >= 0) v.insert(v.end(), {"--expect-gpus", std::to_string(a.expect_gpus)});
  return v;
}

int run_fleet(const FleetArgs& a) {
  check_output(a.output);  // fails early with the hint; validates --lang
  (void)make_context(a.machine);  // bad --root, --pid or --config: exit 2 before any rank starts MPI
  if (!under_mpi_launcher()) {
    throw UsageError(
        "plumb fleet runs one rank per node under an MPI launcher: mpirun --map-by ppr:1:node plumb fleet [check options], "
        "or srun --ntasks-per-node=1 plumb fleet [...]; to judge saved snapshots: plumb fleet report SNAPSHOT...|DIR");
  }
  std::string exe = self_executable();
  if (exe.empty()) throw UsageError("plumb fleet: cannot read /proc/self/exe to find plumb-fleet");
  std::string companion = (std::filesystem::path(exe).parent_path() / "plumb-fleet").string();
  if (::access(companion.c_str(), X_OK) != 0) {
    throw UsageError("plumb fleet: " + companion + " is missing: this plumb was built without MPI (install an MPI such as "
                     "Open MPI's libopenmpi-dev and rebuild)");
  }
  std::vector<std::string> argv{companion, "--plumb", exe, "--deadline", std::to_string(a.deadline_s), "--format", a.output.format,
                                "--p2p-bytes", std::to_string(a.p2p_bytes), "--p2p-iters", std::to_string(a.p2p_iters),
                                "--nccl-bytes", std::to_string(a.nccl_bytes)};
  if (!a.output.lang.empty()) argv.insert(argv.end(), {"--lang", a.output.lang});
  if (!a.output.out.empty()) argv.insert(argv.end(), {"--out", a.output.out});
  if (!a.machine.config.empty()) argv.insert(argv.end(), {"--config", a.machine.config});
  if (a.no_p2p) argv.emplace_back("--no-p2p");
  if (a.no_nccl) argv.emplace_back("--no-nccl");
  argv.emplace_back("--");
  for (auto& s : check_args(a)) argv.push_back(std::move(s));
  std::vector<char*> cargv;
  cargv.reserve(argv.size() + 1);
  for (auto& s : argv) cargv.push_back(s.data());
  cargv.push_back(nullptr);
  ::execv(companion.c_str(), cargv.data());
  throw UsageError("plumb fleet: cannot run " + companion + ": " + errno_text(errno));
}

int run_fleet_report(const FleetArgs& a) {
  check_output(a.report_output);
  Config cfg = load_config_or_throw(a.report_config);
  for (const auto& s : a.report_skip) cfg.skip.push_back(s);
  auto nodes = read_fleet_files(a.snapshots, cfg);
  if (!nodes) throw UsageError(nodes.error().message);
  FleetRun run;
  run.network.why = "offline report of saved snapshots (the sweep runs under MPI: plumb fleet)";
  run.nccl.why = "offline report of saved snapshots";
  Report r = judge_fleet(std::move(nodes.value()), run, cfg);
  emit(r, a.report_output);
  return exit_code_for(r.findings);
}


}  // namespace
CommandRun fleet_command(CLI::App& app) {
  auto a = std::make_shared<FleetArgs>();
  add_machine_options(app, a->machine);
  add_output_options(app, a->output);
  app.add_option("--only", a->only, "each rank runs only these check ids or prefixes");
  app.add_option("--skip", a->skip, "each rank skips these check ids or prefixes");
  app.add_option("--bench", a->bench, "quick|none: each rank runs the quick benchmarks too")
      ->check(CLI::IsMember({"quick", "none"}))
      ->capture_default_str();
  app.add_option("--expect-gpus", a->expect_gpus, "fail a node unless exactly N GPUs are usable")->check(CLI::Range(0, 4096));
  app.add_option("--deadline", a->deadline_s, "seconds each rank's check may take; later is 'no result: timed out'")
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
  rep->add_option("snapshots", a->snapshots, "snapshot files, or directories of *.json snapshots")->required();
  add_output_options(*rep, a->report_output);
  rep->add_option("--config", a->report_config, "TOML file overriding thresholds (fleet.* outlier and network rules)");
  rep->add_option("--skip", a->report_skip, "skip these fleet check ids or prefixes");
  return [a, rep] { return rep->parsed() ? run_fleet_report(*a) : run_fleet(*a); };
}

}  // namespace plumb
