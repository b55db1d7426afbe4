// Sample statistics, knee finding, DataLoader advice and bus-bandwidth arithmetic.
#include "bench/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace plumb {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return 0;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double cv_pct_of(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double m = mean_of(v);
  if (m == 0 || !std::isfinite(m)) return 0;
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  return 100.0 * sd / std::fabs(m);
}

double spread_pct_of(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mid = median_of(v);
  if (mid == 0 || !std::isfinite(mid)) return 0;
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return 100.0 * (*hi - *lo) / std::fabs(mid);
}

BenchMetric make_metric(std::string name, std::string unit, bool higher_is_better, std::vector<double> samples) {
  BenchMetric m;
  m.name = std::move(name);
  m.unit = std::move(unit);
  m.higher_is_better = higher_is_better;
  m.samples = static_cast<int>(samples.size());
  if (!samples.empty()) {
    m.median = median_of(samples);
    m.min = *std::min_element(samples.begin(), samples.end());
    m.max = *std::max_element(samples.begin(), samples.end());
    m.cv_pct = cv_pct_of(samples);
  }
  m.values = std::move(samples);
  return m;
}

Knee find_knee(const std::vector<double>& t, double min_gain) {
  Knee k;
  if (t.empty()) return k;
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    // A level at or below zero cannot be improved on meaningfully; stop there.
    if (t[i] <= 0 || t[i + 1] < t[i] * (1.0 + min_gain)) {
      k.index = i;
      return k;
    }
  }
  k.index = t.size() - 1;
  k.still_scaling = t.size() > 1;
  return k;
}

std::vector<int> reader_levels(int cpus) {
  std::vector<int> v;
  int top = std::max(1, 2 * std::max(1, cpus));
  for (int l = 1; l < top; l *= 2) v.push_back(l);
  v.push_back(top);
  return v;
}

std::optional<int> rule_of_thumb_workers(int cores, std::optional<double> storage_bytes_per_s, double mean_file_bytes) {
  if (cores <= 0 || !storage_bytes_per_s || !(mean_file_bytes > 0) || !(*storage_bytes_per_s > 0)) return std::nullopt;
  // Bandwidth divided by file size, capped at 2 × cores (3 GB/s ÷ 2 MB ≈ 1500 → 32).
  double by_io = *storage_bytes_per_s / mean_file_bytes;
  double r = std::min(2.0 * cores, by_io);
  return std::max(1, static_cast<int>(std::floor(r)));
}

DataloaderAdvice advise_dataloader(const std::vector<int>& levels, const std::vector<double>& files_per_s, int cores,
                                   std::optional<double> storage_bytes_per_s, double mean_file_bytes, bool gpu_present) {
  DataloaderAdvice a;
  a.pin_memory = gpu_present;
  a.prefetch_factor = 2;
  if (!levels.empty() && levels.size() == files_per_s.size()) {
    Knee k = find_knee(files_per_s);
    a.num_workers = levels[k.index];
    a.still_scaling = k.still_scaling;
    // When the curve is still climbing at the last level, loading is the bottleneck: a deeper
    // prefetch queue hides more of its jitter.
    if (k.still_scaling) a.prefetch_factor = 4;
  }
  a.rule_of_thumb = rule_of_thumb_workers(cores, storage_bytes_per_s, mean_file_bytes);
  if (a.rule_of_thumb && a.num_workers > 0) {
    double ratio = static_cast<double>(*a.rule_of_thumb) / a.num_workers;
    a.disagrees = ratio > 2.0 || ratio < 0.5;
  }
  return a;
}

double algbw_bytes_per_s(double bytes, double seconds) { return seconds > 0 ? bytes / seconds : 0; }

double allreduce_busbw(double algbw, int ranks) {
  if (ranks <= 0) return 0;
  return algbw * 2.0 * (ranks - 1) / ranks;
}

std::optional<double> change_pct(double baseline, double current) {
  if (baseline == 0 || !std::isfinite(baseline) || !std::isfinite(current)) return std::nullopt;
  return 100.0 * (current - baseline) / std::fabs(baseline);
}

}  // namespace plumb
