// `plumb bench NAME [TARGET]`: its command line (the pipeline: engine/bench.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/bench.h"

namespace plumb {

CommandRun bench_command(CLI::App& app) {
  auto a = std::make_shared<BenchCommandOptions>();
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
