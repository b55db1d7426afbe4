// Every subcommand in one table, in the order `plumb --help` lists them (ninja's tool table):
// the name, the line of help, and the function in its cmd_*.cpp that adds its options.
#include "cli/subcommand.h"

namespace plumb {

CommandRun check_command(CLI::App& app);
CommandRun fleet_command(CLI::App& app);
CommandRun diagnose_command(CLI::App& app);
CommandRun trace_command(CLI::App& app);
CommandRun bench_command(CLI::App& app);
CommandRun topo_command(CLI::App& app);
CommandRun baseline_command(CLI::App& app);
CommandRun compare_command(CLI::App& app);
CommandRun history_command(CLI::App& app);
CommandRun watch_command(CLI::App& app);
CommandRun exporter_command(CLI::App& app);
CommandRun agent_command(CLI::App& app);
CommandRun events_command(CLI::App& app);
CommandRun memory_command(CLI::App& app);
CommandRun nccl_tests_command(CLI::App& app);
CommandRun report_command(CLI::App& app);
CommandRun diff_command(CLI::App& app);
CommandRun h5_command(CLI::App& app);
CommandRun outdiff_command(CLI::App& app);
CommandRun man_command(CLI::App& app);
CommandRun completion_command(CLI::App& app);

const std::vector<SubcommandInfo>& subcommands() {
  static const std::vector<SubcommandInfo> t{
      {"check", "health check of this machine (or a --root fixture tree)", check_command},
      {"fleet", "health check across a cluster: one rank per node under mpirun/srun; `fleet report` judges saved snapshots", fleet_command},
      {"diagnose", "read a failing job's log (or name a symptom) and confirm or refute its causes on this machine", diagnose_command},
      {"trace", "where each training step's time went, from PyTorch profiler traces (Kineto or legacy JSON, .gz)", trace_command},
      {"bench", "measure this machine: membw, storage PATH, dataload DIR, h2d, d2d, gemm, allreduce, step, serve URL (see --list)", bench_command},
      {"topo", "GPU/NIC/NUMA topology, close-GPU groups, NCCL topology file", topo_command},
      {"baseline", "mark a run as the baseline; show, export or import baselines (JSON)", baseline_command},
      {"compare", "compare a run with the baseline: change per metric, verdict, environment differences", compare_command},
      {"history", "list recorded runs, or one metric across runs", history_command},
      {"watch", "sample GPUs, host and a process over time; L2 summary on exit (Ctrl-C or --duration)", watch_command},
      {"exporter", "Prometheus exporter: /metrics (telemetry + last check) and /healthz, loopback by default", exporter_command},
      {"agent", "node agent: kernel events into a state database, the check on a schedule, faults judged across reboots (--once: one cycle)", agent_command},
      {"events", "the node's stored kernel events, newest first; `events ack ID --reason TEXT` acknowledges one", events_command},
      {"memory", "explain torch.cuda.memory_stats()/memory_summary() output and CUDA OOM messages", memory_command},
      {"nccl-tests", "judge nccl-tests logs (all_reduce_perf ...) against the link's expected bus bandwidth", nccl_tests_command},
      {"report", "judge and render a saved snapshot again (any format)", report_command},
      {"diff", "differences between two snapshots that matter for reproducibility and speed", diff_command},
      {"h5", "HDF5 datasets: dtype, shape, chunking, filter pipeline; compare two files", h5_command},
      {"outdiff", "compare two backends' outputs (.npy/.npz) with numpy or Polygraphy tolerances", outdiff_command},
      {"man", "write the manual page (roff) of every command to stdout: plumb man | man -l -", man_command, true},
      {"completion", "write the shell completion script to stdout: source <(plumb completion bash)", completion_command, true},
  };
  return t;
}

}  // namespace plumb
