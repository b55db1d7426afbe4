// `plumb bench NAME [TARGET]`: runs one benchmark, judges it (and the baseline comparison),
// prints tables, and records the run in the history database.
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <memory>

#include "bench/bench.h"
#include "bench/step_script.h"
#include "engine/machine.h"
#include "engine/history.h"
#include "engine/bench.h"
#include "engine/output.h"
#include "core/duration.h"
#include "core/registry.h"
#include "core/suggest.h"
#include "core/text.h"

namespace plumb {

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_signal(int) { g_interrupted.store(true); }

std::uint64_t size_arg(const std::string& v, const char* opt) {
  if (v.empty()) return 0;
  auto s = parse_size(v);
  if (!s || *s == 0) throw UsageError(std::string(opt) + " " + v + ": expected a size such as 4096, 64M or 1G");
  return *s;
}

std::string list_benches(Lang lang) {
  std::string s;
  for (const auto& b : benches()) {
    s += "  " + b.name + std::string(b.name.size() < 10 ? 10 - b.name.size() : 1, ' ') + b.title.in(lang) + "\n" +
         std::string(12, ' ') + "plumb bench " + b.name + " " + b.usage.in(lang) + "\n";
  }
  return s;
}

}  // namespace

int run_bench_command(BenchCommandOptions& a) {
  RenderOptions ro = check_output(a.output);  // fails early with the hint; validates --lang
  if (a.list) {
    write_output(list_benches(ro.lang), a.output.out);
    return 0;
  }
  if (a.print_script) {
    write_output(kStepScript, a.output.out);
    return 0;
  }
  if (a.name.empty()) throw UsageError("bench: name a benchmark (" + [] {
    std::string s;
    for (const auto& n : bench_names()) s += (s.empty() ? "" : "|") + n;
    return s;
  }() + "); see plumb bench --list");
  const BenchInfo* b = find_bench(a.name);
  if (b == nullptr) {
    std::string hint = closest(a.name, bench_names());
    throw UsageError("unknown benchmark '" + a.name + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)") + "; see plumb bench --list");
  }
  if (b->needs_target && a.target.empty()) throw UsageError("bench " + b->name + " needs a path: plumb bench " + b->name + " " + b->usage.en);
  if (!b->needs_target && !a.target.empty()) throw UsageError("bench " + b->name + " takes no path argument ('" + a.target + "')");
  if (a.samples < 0 || a.threads < 0 || a.steps < 0) throw UsageError("bench: counts and durations must not be negative");
  bool serve = b->name == "serve";
  // Plain numbers keep their old meaning (seconds, runs); durations with a unit work too.
  auto seconds = [](const std::string& v, const char* opt) -> double {
    if (v.empty()) return 0;
    if (auto d = parse_double(v)) {
      if (*d < 0) throw UsageError(std::string(opt) + " " + v + ": must not be negative");
      return *d;
    }
    auto d = watch::parse_duration(v);
    if (!d) throw UsageError(std::string(opt) + " " + v + ": " + d.error().message);
    return static_cast<double>(d->count()) / 1000.0;
  };
  if (b->name != "ort") {
    for (const auto& [k, v] : a.ort) {
      if (!v.empty()) throw UsageError("--" + k + " applies to bench ort only");
    }
  }
  if (!serve) {
    for (const auto& [k, v] : a.serve) {
      if (!v.empty()) throw UsageError("--" + k + " applies to bench serve only");
    }
    if (!a.headers.empty() || a.no_stream || a.triton_stats) throw UsageError("--header, --no-stream and --triton-stats apply to bench serve only");
  }
  BenchOptions o;
  o.target = a.target;
  o.size_bytes = size_arg(a.size, "--size");
  o.block_bytes = size_arg(a.block, "--block");
  o.storage_bytes_per_s = static_cast<double>(size_arg(a.storage_bw, "--storage-bw"));
  o.threads = a.threads;
  o.samples = a.samples;
  for (const auto& [k, v] : a.ort) {
    if (!v.empty()) o.ort[k] = v;
  }
  if (serve) {
    o.serve = a.serve;
    o.serve["duration"] = a.duration;
    o.serve["warmup"] = a.warmup;
    o.serve["timeout"] = a.timeout;
    if (a.no_stream) o.serve["no-stream"] = "1";
    if (a.triton_stats) o.serve["triton-stats"] = "1";
    for (auto it = o.serve.begin(); it != o.serve.end();) it = it->second.empty() ? o.serve.erase(it) : std::next(it);
    o.headers = a.headers;
  } else {
    auto w = a.warmup.empty() ? std::optional<std::uint64_t>(1) : parse_uint(a.warmup);
    if (!w || *w > 1000) throw UsageError("--warmup " + a.warmup + ": expected a number of unmeasured runs");
    o.warmup = static_cast<int>(*w);
    o.duration_s = seconds(a.duration, "--duration");
  }
  o.decode = a.decode;
  o.cached = a.cached;
  o.max_files = a.max_files;
  o.python = a.python;
  o.dtype = a.dtype;
  o.steps = a.steps;
  if (!serve) o.timeout_s = static_cast<int>(seconds(a.timeout, "--timeout"));
  for (auto w : split(a.workers, ',')) {
    if (trim(w).empty()) continue;
    auto v = parse_uint(w);
    if (!v || *v > 1024) throw UsageError("--workers " + a.workers + ": expected numbers such as 0,2,4");
    o.workers.push_back(static_cast<int>(*v));
  }
  o.progress = true;  // Progress itself checks that stderr is a terminal
  o.interrupted = &g_interrupted;
  Config cfg = load_config_or_throw(a.config);

  // Open the history first: a broken database should fail before minutes of measuring.
  std::unique_ptr<HistoryDb> db;
  if (!a.history.no_history) db = open_history_or_throw(a.history);

  Context ctx;
  ctx.python = a.python;
  ctx.deadline = std::chrono::milliseconds(a.timeout_ms);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  auto start = std::chrono::steady_clock::now();
  auto res = run_bench(*b, ctx, o);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (!res) throw UsageError(res.error().message);
  if (g_interrupted.load()) throw UsageError("bench " + b->name + ": interrupted; nothing recorded");

  Report r;
  r.facts.meta.tool_version = plumb_version();
  r.facts.meta.command = "bench " + b->name;
  r.facts.meta.started_at = now_iso8601();
  r.facts.meta.hostname = res->context.hostname;
  r.facts.meta.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.facts.bench.collected = true;
  r.facts.bench.results.push_back(std::move(res.value()));
  attach_baseline(r.facts, db.get(), a.history);
  attach_earlier_runs(r.facts, db.get());
  Selection sel;
  sel.only = {"l2.bench", "l2.baseline", "l2.serving"};
  r.findings = judge(r.facts, cfg.thresholds, sel);
  emit(r, a.output);
  bool measured = r.facts.bench.results.front().status == "ok";
  if (measured && !record_report(db.get(), r)) return 2;
  return exit_code_for(r.findings);
}


}  // namespace plumb
