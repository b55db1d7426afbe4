// `plumb bench NAME [TARGET]`: runs one benchmark, judges it (and the baseline comparison),
// prints tables, and records the run in the history database.
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <memory>

#include "bench/bench.h"
#include "bench/step_script.h"
#include "cli/check_options.h"
#include "cli/history_options.h"
#include "cli/subcommand.h"
#include "core/registry.h"
#include "core/suggest.h"
#include "core/text.h"

namespace plumb {

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_signal(int) { g_interrupted.store(true); }

struct BenchArgs {
  std::string name;
  std::string target;
  std::string size, block, storage_bw;
  int threads = 0, samples = 0, warmup = 1, max_files = 0, steps = 0, timeout_s = 0;
  double duration = 0;
  bool decode = false, cached = false, list = false, print_script = false;
  std::string python, dtype, workers, config;
  int timeout_ms = 5000;
  HistoryOptions history;
  OutputOptions output;
};

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

int run(BenchArgs& a) {
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
  if (a.samples < 0 || a.threads < 0 || a.warmup < 0 || a.duration < 0 || a.steps < 0 || a.timeout_s < 0) {
    throw UsageError("bench: counts and durations must not be negative");
  }
  BenchOptions o;
  o.target = a.target;
  o.size_bytes = size_arg(a.size, "--size");
  o.block_bytes = size_arg(a.block, "--block");
  o.storage_bytes_per_s = static_cast<double>(size_arg(a.storage_bw, "--storage-bw"));
  o.threads = a.threads;
  o.samples = a.samples;
  o.warmup = a.warmup;
  o.duration_s = a.duration;
  o.decode = a.decode;
  o.cached = a.cached;
  o.max_files = a.max_files;
  o.python = a.python;
  o.dtype = a.dtype;
  o.steps = a.steps;
  o.timeout_s = a.timeout_s;
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
  Selection sel;
  sel.only = {"l2.bench", "l2.baseline"};
  r.findings = judge(r.facts, cfg.thresholds, sel);
  emit(r, a.output);
  bool measured = r.facts.bench.results.front().status == "ok";
  if (measured && !record_report(db.get(), r)) return 2;
  return exit_code_for(r.findings);
}

const bool kBench = register_subcommand(
    {"bench", "measure this machine: membw, storage PATH, dataload DIR, h2d, d2d, gemm, allreduce, step (see --list)", 30,
     [](CLI::App& app) {
       auto a = std::make_shared<BenchArgs>();
       app.add_option("name", a->name, "benchmark: membw|storage|dataload|h2d|d2d|gemm|allreduce|step");
       app.add_option("target", a->target, "storage: PATH (directory or new file); dataload: dataset DIR");
       app.add_option("--size", a->size, "membw: bytes per array; storage: test file size; h2d/d2d: buffer; gemm: m=n=k");
       app.add_option("--block", a->block, "storage: random-read block size (default 4K; sequential uses 1M)");
       app.add_option("--threads", a->threads, "storage: parallel readers (default 4); membw: threads of the all-CPU run; dataload: most readers");
       app.add_option("--samples", a->samples, "measured samples (default per benchmark)");
       app.add_option("--warmup", a->warmup, "unmeasured warm-up runs first")->capture_default_str();
       app.add_option("--duration", a->duration, "storage: seconds per sample; dataload: seconds per reader level");
       app.add_flag("--decode", a->decode, "dataload: decode JPEG files with libjpeg-turbo");
       app.add_flag("--cached", a->cached, "dataload: keep files in the page cache (warm reads)");
       app.add_option("--max-files", a->max_files, "dataload: files considered (default 20000)");
       app.add_option("--storage-bw", a->storage_bw, "dataload: storage bandwidth in bytes/s for the rule of thumb (default: measured)");
       app.add_option("--python", a->python, "step: Python interpreter with PyTorch (default python3)");
       app.add_option("--workers", a->workers, "step: num_workers values to sweep, e.g. 0,2,4");
       app.add_option("--steps", a->steps, "step: timed steps per setting (default 20)");
       app.add_option("--timeout", a->timeout_s, "step: seconds before the Python run is stopped (default 600)");
       app.add_option("--dtype", a->dtype, "gemm: fp32|tf32|bf16, comma-separated (default all)");
       app.add_option("--config", a->config, "TOML file overriding thresholds");
       app.add_flag("--list", a->list, "list the benchmarks");
       app.add_flag("--print-script", a->print_script, "print the Python script of the step benchmark");
       add_history_options(app, a->history, true);
       add_output_options(app, a->output);
       return [a] { return run(*a); };
     }});

}  // namespace
}  // namespace plumb
