// `plumb bench ort`: the ONNX Runtime thread sweep (bench/ort.cpp) and its pure parts: the sweep
// plan from the options, the percentile definition, the cgroup cpu.stat throttling counters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/bench.h"
#include "core/context.h"
#include "core/facts/bench.h"
#include "core/result.h"

namespace plumb {

struct OrtPlan {
  std::vector<int> intra;        // intra_op_num_threads values; 0 = ORT's default
  std::vector<bool> parallel;    // execution modes: false sequential, true parallel
  std::vector<int> batches;      // batch sizes for a dynamic first dimension
  double rate = 0;               // open-loop requests/s; 0: half the first setting's closed-loop throughput
  double duration_s = 2;         // per setting, closed and open loop each
  int samples = 5;               // windows of the closed loop (the metric samples)
  int warmup = 1;
  std::string lib, input, save;  // --ort-lib, --input FILE.npy, --save-outputs DIR
};

// Defaults: intra 0, 1, 2, 4 ... up to the CPUs granted (and that count itself), both execution
// modes, batch 1, 2 s per setting. Errors name the option.
Result<OrtPlan> make_ort_plan(const BenchOptions& o, double cpus_granted);

// Nearest-rank percentile of nanosecond samples, in milliseconds (0 for none).
double percentile_ms(std::vector<double> ns, double q);

// The CFS bandwidth counters of cpu.stat (v2: nr_throttled, throttled_usec; v1: nr_throttled,
// throttled_time in ns).
struct CpuThrottle {
  bool ok = false;
  std::uint64_t nr_periods = 0;
  std::uint64_t nr_throttled = 0;
  std::uint64_t throttled_us = 0;
  std::string source;
};
CpuThrottle parse_cpu_throttle(std::string_view cpu_stat);
// plumb's own cgroup's cpu.stat (v2 unified or the v1 cpu controller), through ctx.root.
CpuThrottle read_cpu_throttle(const Context& ctx);

Result<BenchResult> run_ort(const Context& ctx, const BenchOptions& o);

}  // namespace plumb
