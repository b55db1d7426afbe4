// The pipeline of `plumb watch`: sample GPUs, host and a process over time, then the L2 verdict
// with the next L3 checks.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>

#include "engine/machine.h"
#include "engine/watch.h"
#include "engine/output.h"
#include "core/registry.h"
#include "core/duration.h"
#include "report/live_view.h"
#include "analyze/watch_recording.h"
#include "engine/watch_session.h"
#include "engine/stop_signal.h"

namespace plumb {

namespace {

std::unique_ptr<watch::GpuSampler> open_gpus(const WatchOptions& a, const Context& ctx, std::string& why_not) {
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

}  // namespace

int run_watch(const WatchOptions& a) {
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
  refuse_one_file_twice(a.output.out, a.record, "--record");

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


}  // namespace plumb
