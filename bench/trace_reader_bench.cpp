// Google Benchmark of the trace reader on real traces held in memory (plain and gzip): bytes/s of
// uncompressed JSON through splitter + simdjson + records + breakdown, on one thread.
#include <benchmark/benchmark.h>

#include <fstream>
#include <iterator>
#include <string>

#include "analyze/trace/reader.h"

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string fixture(const char* name) { return std::string(PLUMB_TEST_DIR) + "/fixtures/traces/corpus/" + name; }

void analyse(benchmark::State& state, const std::string& data) {
  std::uint64_t bytes = 0;
  for (auto _ : state) {
    auto r = plumb::trace::analyze_trace_bytes(data, "bench.json");
    if (!r) {
      state.SkipWithError(r.error().message.c_str());
      return;
    }
    bytes = r->bytes;
    benchmark::DoNotOptimize(r->summary);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes * state.iterations()));
}

void BM_TraceKinetoGzip(benchmark::State& state) {
  static const std::string data = read_all(fixture("hta-a100-sxm4-80gb-train-rank0-nccl.json.gz"));
  analyse(state, data);
}

void BM_TraceKinetoPlain(benchmark::State& state) {
  // Inflated once with the reader's own source, so this measures parsing only.
  static const std::string plain = [] {
    std::string gz = read_all(fixture("hta-a100-sxm4-80gb-train-rank0-nccl.json.gz"));
    auto src = plumb::trace::memory_source(gz, "x");
    std::string out;
    char buf[1 << 16];
    while (true) {
      auto n = src->read(buf, sizeof buf);
      if (!n || *n == 0) break;
      out.append(buf, *n);
    }
    return out;
  }();
  analyse(state, plain);
}

BENCHMARK(BM_TraceKinetoGzip)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TraceKinetoPlain)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
