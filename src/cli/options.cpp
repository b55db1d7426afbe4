// CLI11 wiring of the shared options (cli/options.h).
#include "cli/options.h"

#include <algorithm>

#include "core/duration.h"
#include "core/text.h"

namespace plumb {

void add_machine_options(CLI::App& app, MachineOptions& o, unsigned flags) {
  app.add_option("--root", o.root, "read /proc, /sys, /dev, /etc, /run under DIR (a fixture tree)")->capture_default_str();
  if ((flags & kPidFlag) != 0) {
    app.add_option("--pid", o.pid, "inspect running process N (environ, cgroup, limits, libraries) instead of plumb");
  }
  if ((flags & kKmsgFlag) != 0) app.add_option("--kmsg", o.kmsg, "read kernel log lines from FILE instead of /dev/kmsg");
  if ((flags & kDataFlag) != 0) app.add_option("--data", o.data, "dataset path to check (file system type, device); repeatable");
  app.add_option("--nvml-lib", o.nvml_lib, "NVML library to load (default: PLUMB_NVML_LIB or libnvidia-ml.so.1)");
  if ((flags & kPythonFlag) != 0) {
    app.add_option("--python", o.python, "Python interpreter for the framework probe (default: python3 on PATH)");
  }
  if ((flags & kModelRepoFlag) != 0) {
    app.add_option("--model-repo", o.model_repo, "Triton model repository DIR to lint (config.pbtxt of each model)");
  }
  if ((flags & kCudaContextFlag) != 0) {
    app.add_option("--cuda-context", o.cuda_context,
                   "where the CUDA device query creates a context and copies 1 MiB: idle (GPUs no other process "
                   "computes on), always, never")
        ->check(CLI::IsMember({"idle", "always", "never"}))
        ->capture_default_str();
  }
  app.add_option("--config", o.config, "TOML file overriding thresholds (see --print-config)");
  app.add_option("--timeout", o.timeout_ms, "deadline per collector: 500ms, 2s, 1m (a bare number is seconds)")
      ->capture_default_str()
      ->transform(duration_in("--timeout", 1), "DURATION");
}

std::function<std::string(std::string)> duration_in(const std::string& option, long long unit_ms) {
  return [option, unit_ms](const std::string& s) {
    auto d = watch::parse_duration(s);
    if (!d) throw CLI::ValidationError(option, d.error().message);
    if (unit_ms <= 1) return std::to_string(d->count());
    return std::to_string((d->count() + unit_ms - 1) / unit_ms);  // whole units, rounded up
  };
}

void add_history_options(CLI::App& app, HistoryOptions& o, bool recording) {
  app.add_option("--db", o.db, "history database (default: $PLUMB_DB, $XDG_STATE_HOME/plumb/plumb.db or ~/.local/state/plumb/plumb.db)");
  if (recording) {
    app.add_flag("--no-history", o.no_history, "do not record this run in the history database");
    app.add_option("--baseline", o.baseline, "compare with this run id or baseline JSON file instead of the recorded baseline");
  }
}

void add_scheduler_options(CLI::App& app, SchedulerOptions& o) {
  app.add_flag("--slurm", o.slurm, "run as Slurm's HealthCheckProgram: drain this node on a failure, resume it when plumb drained it");
  app.add_option("--node", o.node, "Slurm node name (default: SLURMD_NODENAME, else the short host name)");
  app.add_option("--scontrol", o.scontrol, "absolute path of scontrol (default: /usr/bin/scontrol, /usr/local/bin/scontrol, ...)");
  app.add_option("--slurm-conf", o.slurm_conf, "slurm.conf for scontrol (SLURM_CONF)")->capture_default_str();
  app.add_flag("--dry-run", o.dry_run, "with --slurm: print the scontrol command instead of running it");
  app.add_flag("--npd", o.npd, "run as a node-problem-detector custom plugin: one line, exit 0 ok / 1 problem / 2 unknown");
  app.add_option("--layer", o.layer, "with --npd: judge one layer: gpu|framework|data|distributed|host");
  app.add_option("--state-dir", o.state_dir,
                 "with --slurm/--npd: plumb agent's state directory; when plumb-agent.db is there, its history is judged too")
      ->capture_default_str();
  app.add_option("--budget", o.budget_s, "hard limit for the whole run: 45s, 2m (a bare number is seconds; default with --slurm: 45s)")
      ->transform(duration_in("--budget", 1000), "DURATION");
}

void add_timings_option(CLI::App& app, bool& timings) {
  app.add_flag("--timings", timings,
               "print each collector's start, duration and thread on stderr (and facts.meta.timings in JSON)");
}

void add_output_options(CLI::App& app, OutputOptions& o, const std::vector<std::string>& formats,
                        const std::string& default_format) {
  o.format = default_format;
  o.formats = formats;
  app.add_option("--format,-f", o.format, "output format: " + join(formats, "|"))->capture_default_str();
  app.add_option("--lang", o.lang, "report language: en|zh (default: from LC_ALL/LANG)");
  app.add_option("--out,-o", o.out, "write the report to FILE (atomically) instead of stdout");
  if (std::find(formats.begin(), formats.end(), "term") != formats.end()) {
    auto* v = app.add_flag("--verbose,-v", o.verbose, "terminal report: every check that passed or was not checked, and the whole environment");
    auto* q = app.add_flag("--quiet,-q", o.quiet, "terminal report: only the verdict line (the exit code says the same)");
    v->excludes(q);
  }
}
void add_artefact_options(CLI::App& app, ArtefactOptions& o, const std::string& config_help, const std::string& default_only) {
  app.add_option("--config", o.config, config_help);
  app.add_option("--only", o.only, "judge only these check ids or prefixes (default " + default_only + ")");
  app.add_option("--skip", o.skip, "skip these check ids or prefixes");
  app.add_option("--save", o.save, "also save the report as JSON (a snapshot `plumb report` can render)");
  add_output_options(app, o.output);
}

}  // namespace plumb
