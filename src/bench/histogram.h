// A log-linear latency histogram in the manner of HdrHistogram: exact below 2048 ns, then 1024
// linear sub-buckets per power of two, so every recorded value is known to within 1/1024
// (< 0.1 %) of itself. Fixed memory (about 300 KB), O(1) record, mergeable across threads.
#pragma once

#include <cstdint>
#include <vector>

namespace plumb {

class LatencyHistogram {
 public:
  // Largest value kept apart from the overflow count: 2^42 ns (about 73 minutes).
  static constexpr int kSubBits = 10;                       // 1024 sub-buckets per octave
  static constexpr std::uint64_t kExactBelow = 2048;        // values below are counted exactly
  static constexpr int kTopBit = 42;
  static constexpr std::uint64_t kMaxValue = (std::uint64_t{1} << kTopBit) - 1;

  LatencyHistogram();

  void record(std::uint64_t ns, std::uint64_t count = 1);
  void merge(const LatencyHistogram& other);
  void clear();

  [[nodiscard]] std::uint64_t count() const { return total_; }
  [[nodiscard]] std::uint64_t overflow() const { return overflow_; }  // values above kMaxValue (clamped)
  [[nodiscard]] std::uint64_t min() const { return total_ ? min_ : 0; }
  [[nodiscard]] std::uint64_t max() const { return max_; }  // exact, as recorded
  [[nodiscard]] double mean() const { return total_ ? sum_ / static_cast<double>(total_) : 0.0; }

  // Nearest-rank percentile: the smallest recorded value v such that at least p % of all recorded
  // values are <= v (rank ceil(p/100 × N), at least 1). Reported as the highest value of v's
  // bucket (HdrHistogram's "highest equivalent value"), never above the exact maximum, so the
  // figure is within 1/1024 of the true order statistic and never below it. 0 when empty.
  [[nodiscard]] std::uint64_t percentile(double p) const;

  // Bucket arithmetic, public for the tests of the error bound.
  static std::size_t index_of(std::uint64_t v);
  static std::uint64_t lowest_in(std::size_t index);
  static std::uint64_t highest_in(std::size_t index);
  static std::size_t bucket_count();

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t total_ = 0;
  std::uint64_t overflow_ = 0;
  std::uint64_t min_ = ~std::uint64_t{0};
  std::uint64_t max_ = 0;
  double sum_ = 0;
};

// MLPerf LoadGen's minimum query count for a percentile estimate (loadgen/results.cc,
// PerformanceSummary::EarlyStopping): the smallest n such that, with one query over the bound,
// P(at most one of n queries over | true percentile p) < 1 − 0.99, plus one. Gives 64 for P90,
// 662 for P99 and 6636 for P99.9 — the counts LoadGen prints as "would need to process at least".
std::uint64_t mlperf_min_queries(double percentile);

}  // namespace plumb
