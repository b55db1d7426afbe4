// Log-linear latency histogram and MLPerf's minimum sample counts for percentiles.
#include "bench/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace plumb {

namespace {
constexpr std::uint64_t kHalf = std::uint64_t{1} << LatencyHistogram::kSubBits;  // 1024
}

LatencyHistogram::LatencyHistogram() : counts_(bucket_count(), 0) {}

std::size_t LatencyHistogram::bucket_count() {
  // Exact part [0, 2048), then one block of 1024 per octave from 2^11 up to 2^kTopBit.
  return static_cast<std::size_t>(kExactBelow + static_cast<std::uint64_t>(kTopBit - kSubBits - 1) * kHalf);
}

std::size_t LatencyHistogram::index_of(std::uint64_t v) {
  if (v < kExactBelow) return static_cast<std::size_t>(v);
  v = std::min(v, kMaxValue);
  int msb = 63 - std::countl_zero(v);           // >= 11
  int shift = msb - kSubBits;                    // >= 1
  std::uint64_t mantissa = v >> shift;           // [1024, 2047]
  return static_cast<std::size_t>(kExactBelow + static_cast<std::uint64_t>(shift - 1) * kHalf + (mantissa - kHalf));
}

std::uint64_t LatencyHistogram::lowest_in(std::size_t index) {
  if (index < kExactBelow) return index;
  std::uint64_t rel = index - kExactBelow;
  int shift = static_cast<int>(rel / kHalf) + 1;
  std::uint64_t mantissa = kHalf + rel % kHalf;
  return mantissa << shift;
}

std::uint64_t LatencyHistogram::highest_in(std::size_t index) {
  if (index < kExactBelow) return index;
  std::uint64_t rel = index - kExactBelow;
  int shift = static_cast<int>(rel / kHalf) + 1;
  return lowest_in(index) + (std::uint64_t{1} << shift) - 1;
}

void LatencyHistogram::record(std::uint64_t ns, std::uint64_t count) {
  if (count == 0) return;
  if (ns > kMaxValue) overflow_ += count;
  counts_[index_of(ns)] += count;
  total_ += count;
  min_ = std::min(min_, ns);
  max_ = std::max(max_, ns);
  sum_ += static_cast<double>(ns) * static_cast<double>(count);
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];
  total_ += o.total_;
  overflow_ += o.overflow_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
  sum_ += o.sum_;
}

void LatencyHistogram::clear() {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_ = overflow_ = 0;
  min_ = ~std::uint64_t{0};
  max_ = 0;
  sum_ = 0;
}

std::uint64_t LatencyHistogram::percentile(double p) const {
  if (total_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(total_)));
  rank = std::clamp<std::uint64_t>(rank, 1, total_);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::min(std::max(highest_in(i), min()), max_);
  }
  return max_;
}

std::uint64_t mlperf_min_queries(double percentile) {
  double p = std::clamp(percentile / 100.0, 0.0, 0.999999);
  if (p <= 0) return 1;
  // odds(h, t=1) = BetaRegularized[p, h, 2] = p^(h+1) + (h+1) p^h (1-p): the chance of at most
  // one over-bound query among h+1 when a fraction p is within the bound.
  double lp = std::log(p);
  for (std::uint64_t h = 1; h < 100000000; ++h) {
    double n = static_cast<double>(h + 1);
    double odds = std::exp(n * lp) + n * std::exp(static_cast<double>(h) * lp) * (1 - p);
    if (odds < 0.01) return h + 1;
  }
  return 100000000;
}

}  // namespace plumb
