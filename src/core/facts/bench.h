// Facts of one area: benchmarks (membw, storage, dataload, GPU copies, GEMM, all-reduce, step)
// and the baseline a run is compared with.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

// One measured quantity with its sample statistics. `name` is the stable key that baselines and
// comparisons match on ("membw.copy.all", "storage.randread.iops", "step.best").
struct BenchMetric {
  std::string name;
  std::string unit;                 // "GB/s", "IOPS", "files/s", "s/step", "TFLOPS"
  bool higher_is_better = true;     // s/step: false
  int samples = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  double cv_pct = 0;                // coefficient of variation (stddev / mean) in percent
  std::vector<double> values;       // the raw samples, in measurement order
  bool operator==(const BenchMetric&) const = default;
};
PLUMB_JSON(BenchMetric, name, unit, higher_is_better, samples, median, min, max, cv_pct, values)

// Conditions the numbers were measured under, read before and after the run: a benchmark on a
// loaded machine or a throttling GPU says so instead of silently reading low.
struct BenchGpuState {
  std::string bus_id;
  Fact<int> sm_clock_mhz;
  Fact<int> mem_clock_mhz;
  Fact<std::uint64_t> throttle_reasons;  // nvmlClocksEventReasons bit mask
  // Compute processes other than plumb's on this GPU: "pid 4242 (python3, 70 GiB)". Read where the
  // benchmark context is (before and after a GPU benchmark).
  Fact<std::vector<std::string>> other_processes;
  bool operator==(const BenchGpuState&) const = default;
};
PLUMB_JSON(BenchGpuState, bus_id, sm_clock_mhz, mem_clock_mhz, throttle_reasons, other_processes)

struct BenchContext {
  std::string hostname;
  std::string started_at;             // ISO 8601 UTC
  Fact<std::string> cpu_model;
  Fact<std::string> governor;         // cpu0's scaling_governor
  Fact<double> load_before;           // 1-minute load average
  Fact<double> load_after;
  Fact<int> allowed_cpus;             // sched_getaffinity of plumb
  Fact<int> numa_nodes;
  Fact<std::string> kernel;
  std::map<std::string, std::string> versions;  // plumb, libcudart, cublas, nccl, torch, python
  std::vector<BenchGpuState> gpus_before;
  std::vector<BenchGpuState> gpus_after;
  bool operator==(const BenchContext&) const = default;
};
PLUMB_JSON(BenchContext, hostname, started_at, cpu_model, governor, load_before, load_after, allowed_cpus,
           numa_nodes, kernel, versions, gpus_before, gpus_after)

// One row of a sweep (dataload reader levels, step DataLoader settings, all-reduce sizes).
struct BenchRow {
  std::map<std::string, std::string> setting;  // {"readers": "4"}, {"num_workers": "2", "pin_memory": "true"}
  std::map<std::string, double> values;        // {"files_per_s": 812.0, "mb_per_s": 95.1}
  bool operator==(const BenchRow&) const = default;
};
PLUMB_JSON(BenchRow, setting, values)

struct BenchResult {
  std::string bench;                  // membw | storage | dataload | h2d | d2d | gemm | allreduce | step
  std::string status = "ok";          // ok | skipped | error
  std::string reason;                 // why skipped or failed (one line)
  std::map<std::string, std::string> params;   // what was asked: size, block size, threads, path
  std::vector<BenchMetric> metrics;
  std::vector<BenchRow> rows;         // sweep table, in sweep order
  std::map<std::string, double> derived;       // knee_readers, rule_of_thumb_workers, mean_file_bytes ...
  std::map<std::string, std::string> notes;    // method details: "direct_io": "yes", "mode": "psync"
  BenchContext context;
  double duration_ms = 0;
  bool operator==(const BenchResult&) const = default;
};
PLUMB_JSON(BenchResult, bench, status, reason, params, metrics, rows, derived, notes, context, duration_ms)

// The metrics of the baseline run, attached before judging so that rules (pure functions of
// Facts) can compare. Environment keys ("kernel", "driver", "governor", ...) explain differences.
struct BaselineFacts {
  std::string origin;                 // "run 12 (plumb.db)" or the imported file
  std::string run_started_at;
  std::string hostname;
  std::vector<BenchMetric> metrics;
  std::map<std::string, std::string> environment;
  bool operator==(const BaselineFacts&) const = default;
};
PLUMB_JSON(BaselineFacts, origin, run_started_at, hostname, metrics, environment)

// One metric's medians in the newest earlier runs of the same benchmark, with the same parameters,
// on the same host (the history database), oldest first: how far the machine itself moves between
// runs, which no spread inside one run can show (a cloud host's memory bandwidth drifting with its
// other tenants).
struct MetricRuns {
  std::string metric;
  std::vector<std::int64_t> run_ids;
  std::vector<double> medians;
  bool operator==(const MetricRuns&) const = default;
};
PLUMB_JSON(MetricRuns, metric, run_ids, medians)

struct BenchFacts {
  bool collected = false;             // true once any benchmark ran in this run
  std::vector<BenchResult> results;
  Fact<BaselineFacts> baseline;       // missing: why there is none ("no baseline set in plumb.db")
  Fact<std::vector<MetricRuns>> earlier;  // missing: why not read (history disabled, no database)
  bool operator==(const BenchFacts&) const = default;
};
PLUMB_JSON(BenchFacts, collected, results, baseline, earlier)

}  // namespace plumb
