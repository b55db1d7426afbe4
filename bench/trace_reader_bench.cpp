// Google Benchmark of the trace reader on real traces held in memory (plain and gzip): bytes/s of
// uncompressed JSON through splitter + event scanner + records + breakdown. The argument is the
// number of threads (1: the per-core figure; more: parts of the trace read at once). The gzip
// benchmarks run each inflater (0: zlib, 1: ISA-L) in the same run, so their ratio is the choice's.
#include <benchmark/benchmark.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "analyze/trace/reader.h"
#include "analyze/trace/source.h"

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string fixture(const std::string& name) { return std::string(PLUMB_TEST_DIR) + "/fixtures/traces/corpus/" + name; }

// Inflated once with the reader's own source, so that the plain benchmarks measure parsing only.
std::string inflate(const std::string& gz) {
  auto src = plumb::trace::memory_source(gz, "x");
  std::string out;
  std::string buf(1 << 16, '\0');
  while (true) {
    auto n = src->read(buf.data(), buf.size());
    if (!n || *n == 0) break;
    out.append(buf.data(), *n);
  }
  return out;
}

const std::string& trace(const std::string& name, bool plain) {
  static std::map<std::pair<std::string, bool>, std::string> cache;
  auto key = std::make_pair(name, plain);
  auto it = cache.find(key);
  if (it == cache.end()) {
    std::string gz = read_all(fixture(name));
    it = cache.emplace(key, plain ? inflate(gz) : gz).first;
  }
  return it->second;
}

void analyse(benchmark::State& state, const std::string& data) {
  plumb::trace::TraceOptions opt;
  opt.threads = static_cast<int>(state.range(0));
  opt.min_part = std::size_t{1} << 20;
  std::uint64_t bytes = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores): Google Benchmark's loop
    auto r = plumb::trace::analyze_trace_bytes(data, "bench.json", opt);
    if (!r) {
      state.SkipWithError(r.error().message.c_str());
      return;
    }
    bytes = r->bytes;
    benchmark::DoNotOptimize(r->summary);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes * state.iterations()));
}

// Sets the inflater of the gzip benchmarks (0: zlib, 1: ISA-L, linked).
void use_inflater(benchmark::State& state, std::int64_t which) {
  using plumb::trace::Inflater;
  plumb::trace::gzip_inflater = which == 0 ? Inflater::zlib : Inflater::isal;
  state.SetLabel(which == 0 ? "zlib" : "ISA-L");
}

// Inflating alone, through the reader's gzip source: bytes/s of uncompressed JSON.
void BM_InflateNccl(benchmark::State& state) {
  use_inflater(state, state.range(0));
  const std::string& gz = trace("hta-a100-sxm4-80gb-train-rank0-nccl.json.gz", false);
  std::string buf(std::size_t{1} << 18, '\0');
  std::uint64_t bytes = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores): Google Benchmark's loop
    auto src = plumb::trace::memory_source(gz, "bench.json.gz");
    bytes = 0;
    while (true) {
      auto n = src->read(buf.data(), buf.size());
      if (!n) {
        state.SkipWithError(n.error().message.c_str());
        return;
      }
      if (*n == 0) break;
      bytes += *n;
    }
    benchmark::DoNotOptimize(buf.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes * state.iterations()));
}

void BM_TraceNcclGzip(benchmark::State& state) {
  use_inflater(state, state.range(1));
  analyse(state, trace("hta-a100-sxm4-80gb-train-rank0-nccl.json.gz", false));
}

// Kernel-heavy (ResNet-50), CPU-operator-heavy (MTIA inference) and NCCL-heavy (8x A100 training).
void BM_TraceKernelHeavy(benchmark::State& state) { analyse(state, trace("kineto-resnet50-num-workers-4.json.gz", true)); }
void BM_TraceCpuOpHeavy(benchmark::State& state) { analyse(state, trace("hta-mtia-inference-rank0.json.gz", true)); }
void BM_TraceNcclHeavy(benchmark::State& state) { analyse(state, trace("hta-a100-sxm4-80gb-train-rank0-nccl.json.gz", true)); }

BENCHMARK(BM_TraceKernelHeavy)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_TraceCpuOpHeavy)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_TraceNcclHeavy)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
// Arguments: threads, inflater (0: zlib, 1: ISA-L).
BENCHMARK(BM_TraceNcclGzip)->Args({1, 0})->Args({1, 1})->Args({2, 0})->Args({2, 1})->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_InflateNccl)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
