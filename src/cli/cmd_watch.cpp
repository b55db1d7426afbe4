// `plumb watch`: samples GPUs, host and the target process at an interval, shows them live,
// optionally records them, and on exit (duration, Ctrl-C, SIGTERM, target gone) prints the L2
// summary with the L3 checks to run next.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>

#include "cli/check_options.h"
#include "cli/subcommand.h"
#include "core/registry.h"
#include "core/duration.h"
#include "report/live_view.h"
#include "analyze/watch_recording.h"
#include "apps/watch_session.h"
#include "apps/stop_signal.h"

namespace plumb {

namespace {

struct WatchArgs {
  std::string root = "/";
  int pid = 0;
  std::string nvml_lib;
  std::string gpu_script;
  std::string config;
  std::string interval = "1s";
  std::string duration;
  std::string record;
  std::size_t keep = 3600;
  OutputOptions output;
};

std::unique_ptr<watch::GpuSampler> open_gpus(const WatchArgs& a, const Context& ctx, std::string& why_not) {
  if (!a.gpu_script.empty()) {
    auto text = read_user_file(a.gpu_script);
    if (!text) throw UsageError("--gpu-script " + text.error().message);
    auto script = watch::parse_gpu_script(*text, a.gpu_script);
    if (!script) throw UsageError(script.error().message);
    return watch::make_scripted_sampler(std::move(script.value()), "script:" + a.gpu_script);
  }
  auto s = watch::open_nvml_sampler(ctx.nvml_lib);
  if (!s) {
    why_not = s.error().message;
    return nullptr;
  }
  return std::move(s.value());
}

int run_watch(const WatchArgs& a) {
  auto interval = watch::parse_duration(a.interval);
  if (!interval) throw UsageError("--interval " + interval.error().message);
  if (interval->count() < 10) throw UsageError("--interval must be at least 10ms");
  std::optional<std::chrono::milliseconds> duration;
  if (!a.duration.empty()) {
    auto d = watch::parse_duration(a.duration);
    if (!d) throw UsageError("--duration " + d.error().message);
    duration = *d;
  }
  if (a.keep < 10) throw UsageError("--keep must be at least 10 samples");
  Config cfg = load_config_or_throw(a.config);
  MachineOptions mo;
  mo.root = a.root;
  mo.pid = a.pid;
  mo.nvml_lib = a.nvml_lib;
  Context ctx = make_context(mo);
  RenderOptions ro = check_output(a.output);  // fails early with the hint

  watch::StopSignal stop;  // before anything slow (NVML init), so Ctrl-C is never lost
  std::string gpu_why;
  auto gpus = open_gpus(a, ctx, gpu_why);
  watch::SessionConfig sc;
  sc.root = ctx.root;
  sc.pid = ctx.pid;
  sc.interval = *interval;
  sc.keep = a.keep;
  sc.started_at = now_iso8601();
  watch::Session session(sc, std::move(gpus), gpu_why);
  std::string hostname = host_name(ctx.root);

  std::unique_ptr<watch::Recorder> recorder;
  if (!a.record.empty()) {
    auto r = watch::Recorder::open(a.record, session.header(), hostname);
    if (!r) throw UsageError(r.error().message);
    recorder = std::move(r.value());
  }

  // Live view: a screen on a terminal; plain lines when stdout is a pipe and the summary is text.
  bool tty = ::isatty(STDOUT_FILENO) != 0;
  bool show = !a.output.quiet && (tty || (a.output.format == "term" && a.output.out.empty()) || !a.output.out.empty());
  bool screen = show && tty;

  auto start = std::chrono::steady_clock::now();
  auto next = start;
  std::string record_error;
  for (;;) {
    auto now = std::chrono::steady_clock::now();
    const WatchSample& s = session.tick(now);
    if (recorder && record_error.empty()) {
      auto w = recorder->write(s);
      if (!w) record_error = w.error().message;  // keep watching; report once at the end
    }
    if (screen) {
      std::cout << "\033[H\033[2J" << watch::live_screen(session.header(), s, ro.lang) << std::flush;
    } else if (show) {
      std::cout << watch::live_line(s, ro.lang) << std::flush;
    }
    if (ctx.pid > 0 && s.proc_running && !*s.proc_running) break;  // the job ended
    if (duration && now - start >= *duration) break;
    next += *interval;
    now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // sampling fell behind: skip the missed ticks, never burst
    if (duration && next > start + *duration) next = start + *duration;
    // Rounded up: poll() never returns before its timeout, so no tick comes early (or twice).
    auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(next - now).count();
    if (stop.wait(static_cast<int>(wait_ms))) break;
  }
  if (screen) std::cout << "\033[H\033[2J" << std::flush;

  Report r;
  r.facts.meta.tool_version = plumb_version();
  r.facts.meta.command = "watch";
  r.facts.meta.started_at = sc.started_at;
  r.facts.meta.hostname = hostname;
  r.facts.meta.root = ctx.root.root();
  r.facts.meta.target_pid = ctx.pid;
  r.facts.meta.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.facts.watch = session.facts();
  if (recorder) {
    auto f = recorder->finish(r.facts.watch);
    if (!f && record_error.empty()) record_error = f.error().message;
  }
  Selection sel;
  sel.only = {"l2.watch"};
  r.findings = judge(r.facts, cfg.thresholds, sel);
  emit(r, a.output);
  if (!record_error.empty()) {
    std::cerr << "plumb: recording stopped: " << record_error << "\n";
    return 2;
  }
  return exit_code_for(r.findings);
}


}  // namespace
CommandRun watch_command(CLI::App& app) {
  auto a = std::make_shared<WatchArgs>();
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
