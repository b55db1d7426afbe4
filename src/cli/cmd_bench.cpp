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
#include "core/duration.h"
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
  int threads = 0, samples = 0, max_files = 0, steps = 0;
  std::string duration, warmup, timeout;  // numbers (seconds, runs) or, for serve, durations such as 500ms
  std::map<std::string, std::string> serve;  // bench serve's own options, checked by the benchmark
  std::map<std::string, std::string> ort;    // bench ort's own options, checked by the benchmark
  std::vector<std::string> headers;
  bool no_stream = false, triton_stats = false;
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

int run_bench_command(BenchArgs& a) {
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


}  // namespace
CommandRun bench_command(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  app.add_option("name", a->name, "benchmark: membw|storage|dataload|h2d|d2d|gemm|allreduce|step|serve|ort");
  app.add_option("target", a->target, "storage: PATH (directory or new file); dataload: dataset DIR; serve: http://HOST:PORT/PATH; ort: MODEL.onnx");
  app.add_option("--size", a->size, "membw: bytes per array; storage: test file size; h2d/d2d: buffer; gemm: m=n=k");
  app.add_option("--block", a->block, "storage: random-read block size (default 4K; sequential uses 1M)");
  app.add_option("--threads", a->threads, "storage: parallel readers (default 4); membw: threads of the all-CPU run; dataload: most readers");
  app.add_option("--samples", a->samples, "measured samples (default per benchmark)");
  app.add_option("--warmup", a->warmup, "unmeasured warm-up runs first (default 1); serve: unmeasured time first (default 2s)");
  app.add_option("--duration", a->duration, "storage: seconds per sample; dataload: seconds per reader level; serve: measured time (default 10s; 500ms, 2s, 1m)");
  app.add_flag("--decode", a->decode, "dataload: decode JPEG files with libjpeg-turbo");
  app.add_flag("--cached", a->cached, "dataload: keep files in the page cache (warm reads)");
  app.add_option("--max-files", a->max_files, "dataload: files considered (default 20000)");
  app.add_option("--storage-bw", a->storage_bw, "dataload: storage bandwidth in bytes/s for the rule of thumb (default: measured)");
  app.add_option("--python", a->python, "step: Python interpreter with PyTorch (default python3)");
  app.add_option("--workers", a->workers, "step: num_workers values to sweep, e.g. 0,2,4");
  app.add_option("--steps", a->steps, "step: timed steps per setting (default 20)");
  app.add_option("--timeout", a->timeout, "step: seconds before the Python run is stopped (default 600); serve: deadline of each request (default 10s)");
  auto serve_opt = [&app, a](const char* name, const char* help) { app.add_option(std::string("--") + name, a->serve[name], help); };
  serve_opt("rate", "serve: open loop, requests per second");
  serve_opt("arrival", "serve: poisson (default) or constant spacing of the open-loop arrivals");
  serve_opt("concurrency", "serve: closed loop with N connections (labelled closed-loop in the report)");
  serve_opt("connections", "serve: most connections the open loop may open (default 256)");
  serve_opt("p99", "serve: sweep the rate up to the highest one whose P99 stays within BOUND (e.g. 50ms)");
  serve_opt("late-after", "serve: a request leaving later than this after its intended time counts as late (default 1ms)");
  serve_opt("api", "serve: raw (default), oip (KServe v2 /v2/models/M/infer), openai (/v1/completions), openai-chat (/v1/chat/completions)");
  serve_opt("method", "serve: HTTP method of raw requests (default GET, POST with --body)");
  serve_opt("body", "serve: FILE sent as the request body");
  serve_opt("model", "serve: model name (oip, openai, --triton-stats)");
  serve_opt("shape", "serve --api oip: input shape, e.g. 1,3,224,224 (default 1,4)");
  serve_opt("datatype", "serve --api oip: FP32 (default), FP16, FP64, INT8..INT64, UINT8..UINT64, BOOL, BYTES");
  serve_opt("input-name", "serve --api oip: input tensor name (default input)");
  serve_opt("prompt", "serve --api openai*: the prompt");
  serve_opt("max-tokens", "serve --api openai*: max_tokens (default 64)");
  serve_opt("seed", "serve: seed of the Poisson arrivals (default 1)");
  auto ort_opt = [&app, a](const char* name, const char* help) { app.add_option(std::string("--") + name, a->ort[name], help); };
  ort_opt("intra", "ort: intra_op_num_threads values to sweep, 0 = ORT's default (default 0,1,2,4... up to the CPUs granted)");
  ort_opt("exec-mode", "ort: sequential and/or parallel execution (default both)");
  ort_opt("batch", "ort: batch sizes for a dynamic first input dimension (default 1)");
  ort_opt("ort-rate", "ort: open-loop requests per second for every setting (default half the first setting's throughput)");
  ort_opt("ort-lib", "ort: libonnxruntime.so to load (default PLUMB_ORT_LIB, else libonnxruntime.so.1)");
  ort_opt("input", "ort: FILE.npy fed to the model's single input instead of random data");
  ort_opt("save-outputs", "ort: DIR to write the first run's outputs as OUTPUT.npy (for plumb outdiff)");
  app.add_option("--header", a->headers, "serve: extra request header 'Name: value' (repeatable)");
  app.add_flag("--no-stream", a->no_stream, "serve --api openai*: ask for whole replies instead of an event stream");
  app.add_flag("--triton-stats", a->triton_stats, "serve: read Triton's /v2/models/M/stats before and after (queue vs compute time)");
  app.add_option("--dtype", a->dtype, "gemm: fp32|tf32|bf16, comma-separated (default all)");
  app.add_option("--config", a->config, "TOML file overriding thresholds");
  app.add_flag("--list", a->list, "list the benchmarks");
  app.add_flag("--print-script", a->print_script, "print the Python script of the step benchmark");
  add_history_options(app, a->history, true);
  add_output_options(app, a->output);
  return [a] { return run_bench_command(*a); };
}

}  // namespace plumb
