// The pipeline of `plumb fleet`: the check on every node under mpirun/srun (through plumb-fleet)
// or saved snapshots judged together (`plumb fleet report`).
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>
#include <filesystem>
#include <memory>

#include "engine/fleet_report.h"
#include "engine/machine.h"
#include "engine/fleet.h"
#include "engine/output.h"
#include "core/host_root.h"
#include "core/subprocess.h"

namespace plumb {

namespace {

// Environment variables that MPI launchers set in every rank (Open MPI, PMIx under srun or
// prterun, MPICH's Hydra and Intel MPI's PMI).
bool under_mpi_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"}) {
    if (std::getenv(v) != nullptr) return true;  // NOLINT(concurrency-mt-unsafe): read before any thread starts
  }
  return false;
}

// The rank's `plumb check` arguments, rebuilt from the parsed options (only what was given).
std::vector<std::string> check_args(const FleetOptions& a) {
  const MachineOptions& m = a.machine;
  std::vector<std::string> v{"--root", m.root, "--timeout", std::to_string(m.timeout_ms) + "ms", "--bench", a.bench};
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

}  // namespace

int run_fleet(const FleetOptions& a) {
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

int run_fleet_report(const FleetOptions& a) {
  check_output(a.report_output);
  Config cfg = load_config_or_throw(a.report_config);
  for (const auto& s : a.report_skip) cfg.skip.push_back(s);
  if (a.snapshots.empty() == a.report_store.empty()) throw UsageError("fleet report: name snapshot files or --store URL (one of the two)");
  if (!a.report_store.empty()) {
    auto r = judge_fleet_store(a.report_store, cfg);
    if (!r) throw UsageError(r.error().message);
    emit(*r, a.report_output);
    return exit_code_for(r->findings);
  }
  auto nodes = read_fleet_files(a.snapshots, cfg);
  if (!nodes) throw UsageError(nodes.error().message);
  FleetRun run;
  run.network.why = "offline report of saved snapshots (the sweep runs under MPI: plumb fleet)";
  run.nccl.why = "offline report of saved snapshots";
  Report r = judge_fleet(std::move(nodes.value()), run, cfg);
  emit(r, a.report_output);
  return exit_code_for(r.findings);
}


}  // namespace plumb
