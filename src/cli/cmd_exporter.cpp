// `plumb exporter`: its command line (the pipeline: engine/exporter.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/exporter.h"

namespace plumb {

CommandRun exporter_command(CLI::App& app) {
  auto a = std::make_shared<ExporterOptions>();
  app.add_option("--listen", a->listen, "ADDRESS:PORT to serve on; 0.0.0.0:PORT exposes it to the network")->capture_default_str();
  app.add_option("--interval", a->interval, "telemetry sampling interval")->capture_default_str();
  app.add_option("--check-interval", a->check_interval, "how often the full check runs (cached between runs)")->capture_default_str();
  app.add_flag("--no-check", a->no_check, "serve telemetry only, never run the full check");
  app.add_option("--max-connections", a->max_connections, "concurrent connections served; more get 503")->capture_default_str();
  app.add_option("--gpu-script", a->gpu_script, "simulate GPUs from a JSON script instead of NVML (tests, demos)");
  app.add_option("--root", a->machine.root, "read /proc, /sys, ... under DIR (a fixture tree)")->capture_default_str();
  app.add_option("--pid", a->machine.pid, "process to follow (CPU, RSS, threads) and to inspect in checks");
  app.add_option("--nvml-lib", a->machine.nvml_lib, "NVML library to load (default: PLUMB_NVML_LIB or libnvidia-ml.so.1)");
  app.add_option("--python", a->machine.python, "Python interpreter for the framework probe");
  app.add_option("--config", a->machine.config, "TOML file overriding thresholds");
  app.add_option("--lang", a->lang, "language of HELP texts: en|zh");
  return [a] { return run_exporter(*a); };
}

}  // namespace plumb
