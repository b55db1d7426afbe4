// The benchmark table (nvbandwidth's test list idea): each benchmark registers its name, title and
// run function; `plumb bench --list`, "did you mean" and `check --bench quick` come from it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/context.h"
#include "core/facts/bench.h"
#include "core/i18n.h"
#include "core/progress.h"
#include "core/result.h"

namespace plumb {

// What the user asked for; 0 / empty means "the benchmark's default".
struct BenchOptions {
  std::string target;             // storage: PATH (directory or new file); dataload: DIR
  bool quick = false;             // the short variant used by `check --bench quick`
  int samples = 0;                // measured samples (default per benchmark, usually 5)
  int warmup = 1;                 // unmeasured runs first
  std::uint64_t size_bytes = 0;   // membw: bytes per array; storage: test file size; h2d/d2d: buffer
  std::uint64_t block_bytes = 0;  // storage: random-read block (seq uses 1 MiB unless given)
  int threads = 0;                // storage: parallel readers; membw: threads of the "all" run
  double duration_s = 0;          // storage: seconds per sample; dataload: seconds per level
  bool decode = false;            // dataload: decode JPEG files (libjpeg-turbo)
  bool cached = false;            // dataload: keep files in the page cache between levels
  int max_files = 0;              // dataload: files considered (0: 20000)
  double storage_bytes_per_s = 0; // dataload: storage bandwidth for the rule of thumb (0: measured)
  std::string python;             // step: interpreter (default python3)
  std::string dtype;              // gemm: fp32|tf32|bf16 (empty: all three)
  int steps = 0;                  // step: timed steps per setting
  std::vector<int> workers;       // step: num_workers values to sweep (empty: 0, 2, 4 ... up to the CPUs)
  int timeout_s = 0;              // step: deadline for the Python run (0: 600 s)
  // serve: the options only `bench serve` reads, by long option name without dashes ("rate",
  // "concurrency", "p99", "api", ...), validated by the benchmark; --header repeats, so a list.
  std::map<std::string, std::string> serve;
  std::vector<std::string> headers;
  // ort: the options only `bench ort` reads, by long option name without dashes ("intra",
  // "exec-mode", "batch", "ort-rate", "ort-lib", "input", "save-outputs"), validated by the benchmark.
  std::map<std::string, std::string> ort;
  bool progress = false;          // progress lines on stderr (only when it is a terminal)
  const std::atomic<bool>* interrupted = nullptr;  // set by SIGINT/SIGTERM: stop early, clean up
  [[nodiscard]] bool stop() const { return interrupted != nullptr && interrupted->load(); }
};

struct BenchInfo {
  std::string name;        // "membw"
  Text title;
  Text usage;              // one line on the arguments it takes
  bool gpu = false;        // needs a CUDA device
  bool needs_target = false;
  bool in_quick = false;   // part of `check --bench quick`
  // Errors are "could not run as asked" (bad path, file exists): exit 2. A benchmark that cannot
  // run on this machine (no GPU) returns a result with status "skipped" and the reason.
  std::function<Result<BenchResult>(const Context&, const BenchOptions&)> run;
};

// The benchmark table, each bench file adding its rows from its `bench_<file>_tables(BenchTables&)`
// (listed in engine/tables.cpp).
struct BenchTables {
  std::vector<BenchInfo> benches;
  void add_bench(BenchInfo b) { benches.push_back(std::move(b)); }
};
// Built at the first call (defined in engine/tables.cpp).
const BenchTables& bench_tables();
// Sorted by name.
const std::vector<BenchInfo>& benches();
const BenchInfo* find_bench(const std::string& name);
std::vector<std::string> bench_names();

// Runs one benchmark with its context block read before and after; exceptions become errors.
Result<BenchResult> run_bench(const BenchInfo& b, const Context& ctx, const BenchOptions& o);

// A result for a benchmark that cannot run here, with the precise reason.
BenchResult skipped_result(const std::string& bench, const std::string& reason);

// A benchmark's progress line on stderr (core/progress.h), drawn from the start when enabled and
// standard error is a terminal.
class Progress {
 public:
  Progress(bool enabled, const std::string& bench);
  void update(const std::string& what) {
    if (line_) line_->set(what);
  }

 private:
  std::unique_ptr<ProgressLine> line_;
};

}  // namespace plumb
