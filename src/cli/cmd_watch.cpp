// `plumb watch`: its command line (the pipeline: engine/watch.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/watch.h"

namespace plumb {

CommandRun watch_command(CLI::App& app) {
  auto a = std::make_shared<WatchOptions>();
  app.add_option("--interval", a->interval, "time between samples: 100ms, 1s, 2m")->capture_default_str();
  app.add_option("--duration", a->duration, "stop after this long (default: until Ctrl-C or the --pid process ends)");
  app.add_option("--pid", a->pid, "the training/serving process to follow (CPU, RSS, threads; the run ends with it)");
  app.add_option("--record", a->record, "also write every sample to FILE: .csv (long format) or JSON lines");
  app.add_option("--root", a->root, "read /proc under DIR (a fixture tree)")->capture_default_str();
  app.add_option("--nvml-lib", a->nvml_lib, "NVML library to load (default: PLUMB_NVML_LIB or libnvidia-ml.so.1)");
  app.add_option("--gpu-script", a->gpu_script, "simulate GPUs from a JSON script instead of NVML (tests, demos)");
  app.add_option("--config", a->config, "TOML file overriding thresholds");
  app.add_option("--keep", a->keep, "samples kept for the summary (older ones are only in --record)")->capture_default_str();
  add_output_options(app, a->output, report_formats_with_prom());
  return [a] { return run_watch(*a); };
}

}  // namespace plumb
