// Pure arithmetic of the benchmarks: sample statistics, the knee of a scaling curve, the
// DataLoader advice and its rule of thumb, all-reduce bus bandwidth. No I/O here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/facts/bench.h"

namespace plumb {

double median_of(std::vector<double> v);  // 0 for an empty vector
double mean_of(const std::vector<double>& v);
// Coefficient of variation in percent: sample standard deviation (n-1) over the mean; 0 for
// fewer than two samples or a zero mean.
double cv_pct_of(const std::vector<double>& v);
// (largest - smallest) / median in percent: how far separate runs' figures moved apart; 0 for
// fewer than two values or a median of 0.
double spread_pct_of(const std::vector<double>& v);
// Runs of the history needed before their spread is judged (two runs are one difference).
inline constexpr std::size_t kMinRunsForSpread = 3;
// A metric with median/min/max/CV computed from the samples.
BenchMetric make_metric(std::string name, std::string unit, bool higher_is_better, std::vector<double> samples);

// The knee of a scaling curve (throughput per level, levels in increasing order): the first level
// after which the next one gains less than `min_gain` (0.05: 5 %). `still_scaling` when every step
// gained at least that much (the knee is then the last level measured).
struct Knee {
  std::size_t index = 0;
  bool still_scaling = false;
};
Knee find_knee(const std::vector<double>& throughput, double min_gain = 0.05);

// Reader levels 1, 2, 4, ... up to and including 2 × cpus (the last level is 2 × cpus even when
// that is not a power of two).
std::vector<int> reader_levels(int cpus);

// The rule of thumb for parallel loaders: min(2 × cores, storage bandwidth ÷ mean file
// size), at least 1. Missing inputs give nullopt.
std::optional<int> rule_of_thumb_workers(int cores, std::optional<double> storage_bytes_per_s, double mean_file_bytes);

struct DataloaderAdvice {
  int num_workers = 0;      // the knee of the measured curve
  int prefetch_factor = 2;  // >= 2: one batch ready while the next is being loaded
  bool pin_memory = false;  // true when a GPU is present (page-locked buffers for async H2D)
  std::optional<int> rule_of_thumb;
  bool disagrees = false;   // rule and measurement differ by more than a factor of 2
  bool still_scaling = false;
};
DataloaderAdvice advise_dataloader(const std::vector<int>& levels, const std::vector<double>& files_per_s, int cores,
                                   std::optional<double> storage_bytes_per_s, double mean_file_bytes, bool gpu_present);

// nccl-tests arithmetic: algbw = bytes / seconds; all-reduce busbw = algbw × 2(n−1)/n.
double algbw_bytes_per_s(double bytes, double seconds);
double allreduce_busbw(double algbw, int ranks);

// Relative change of `current` against `baseline` in percent (+32.4 for 0.182 -> 0.241); nullopt
// when the baseline is zero or either value is not finite.
std::optional<double> change_pct(double baseline, double current);

}  // namespace plumb
