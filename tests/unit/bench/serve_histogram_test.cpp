// The load generator's histogram (value error bound, nearest-rank percentiles, merge), MLPerf's
// minimum counts, and the arrival schedules (Poisson mean and variance, constant spacing).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "bench/histogram.h"
#include "bench/serve_schedule.h"

namespace plumb {
namespace {

TEST(ServeHistogram, EveryBucketIsWithinATenthOfAPercent) {
  // Walk bucket edges across the whole range: each bucket's width relative to its lowest value
  // bounds the error of any value reported from it.
  for (std::size_t i = 0; i < LatencyHistogram::bucket_count(); i += 97) {
    std::uint64_t lo = LatencyHistogram::lowest_in(i), hi = LatencyHistogram::highest_in(i);
    ASSERT_LE(lo, hi);
    ASSERT_EQ(LatencyHistogram::index_of(lo), i);
    ASSERT_EQ(LatencyHistogram::index_of(hi), i);
    if (lo > 0) {
      EXPECT_LE(static_cast<double>(hi - lo) / static_cast<double>(lo), 0.001) << "bucket " << i;
    }
  }
  EXPECT_EQ(LatencyHistogram::index_of(LatencyHistogram::highest_in(LatencyHistogram::bucket_count() - 1)), LatencyHistogram::bucket_count() - 1);
}

TEST(ServeHistogram, PercentilesMatchSortedValuesWithinTheBound) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(13.0, 1.5);  // ~0.4 ms median, long tail
  std::vector<std::uint64_t> v;
  LatencyHistogram h;
  for (int i = 0; i < 100000; ++i) {
    auto x = static_cast<std::uint64_t>(dist(rng));
    v.push_back(x);
    h.record(x);
  }
  std::sort(v.begin(), v.end());
  for (double p : {1.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
    std::uint64_t exact = v[std::max<std::size_t>(rank, 1) - 1];
    std::uint64_t got = h.percentile(p);
    EXPECT_GE(got, exact) << p;
    EXPECT_LE(static_cast<double>(got - exact), 0.001 * static_cast<double>(exact) + 1) << p;
  }
  EXPECT_EQ(h.max(), v.back());
  EXPECT_EQ(h.min(), v.front());
  EXPECT_EQ(h.count(), v.size());
}

TEST(ServeHistogram, NearestRankOnSmallSets) {
  LatencyHistogram h;
  for (std::uint64_t x : {10, 20, 30, 40, 50}) h.record(x);
  EXPECT_EQ(h.percentile(20), 10U);   // rank ceil(1.0) = 1
  EXPECT_EQ(h.percentile(21), 20U);   // rank ceil(1.05) = 2
  EXPECT_EQ(h.percentile(50), 30U);
  EXPECT_EQ(h.percentile(100), 50U);
  EXPECT_EQ(h.percentile(0), 10U);
  EXPECT_EQ(LatencyHistogram().percentile(50), 0U);
}

TEST(ServeHistogram, MergeEqualsRecordingEverythingInOne) {
  LatencyHistogram a, b, all;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; ++i) {
    std::uint64_t x = rng() % 5000000000ULL;
    (i % 3 == 0 ? a : b).record(x);
    all.record(x);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_EQ(a.min(), all.min());
  for (double p : {50.0, 99.0, 99.9}) EXPECT_EQ(a.percentile(p), all.percentile(p));
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
}

TEST(ServeHistogram, HugeValuesAreClampedAndCounted) {
  LatencyHistogram h;
  h.record(~std::uint64_t{0});
  EXPECT_EQ(h.overflow(), 1U);
  EXPECT_EQ(h.count(), 1U);
  EXPECT_EQ(h.percentile(50), h.max());  // the exact maximum, not a clamped bucket edge
}

TEST(ServeHistogram, MlperfMinimumsReproduceLoadGen) {
  // LoadGen prints "would need to process at least 662 total queries" for P99 and
  // "Processed at least 64 queries" for P90.
  EXPECT_EQ(mlperf_min_queries(90), 64U);
  EXPECT_EQ(mlperf_min_queries(99), 662U);
  EXPECT_EQ(mlperf_min_queries(99.9), 6636U);
}

TEST(ServeSchedule, PoissonGapsHaveTheRightMeanAndVariance) {
  const double rate = 1000;
  ArrivalSchedule s(Arrival::poisson, rate, 0, 1, 42);
  std::vector<double> gaps;
  std::uint64_t prev = 0;
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t t = s.next();
    ASSERT_GE(t, prev);
    gaps.push_back(static_cast<double>(t - prev) / 1e9);
    prev = t;
  }
  double mean = 0;
  for (double g : gaps) mean += g;
  mean /= static_cast<double>(gaps.size());
  double var = 0;
  for (double g : gaps) var += (g - mean) * (g - mean);
  var /= static_cast<double>(gaps.size() - 1);
  // Exponential gaps: mean 1/rate, variance 1/rate^2 (coefficient of variation 1).
  EXPECT_NEAR(mean, 1 / rate, 0.01 / rate);
  EXPECT_NEAR(var, 1 / (rate * rate), 0.03 / (rate * rate));
  // Counts per 100 ms window: Poisson, so variance ≈ mean (= 100). The 200 000 gaps span about
  // 200 s; the last windows are left out, the schedule may end inside them.
  std::vector<int> counts(1900, 0);
  double t = 0;
  for (double g : gaps) {
    t += g;
    auto w = static_cast<std::size_t>(t / 0.1);
    if (w < counts.size()) ++counts[w];
  }
  double cm = 0, cv = 0;
  for (int c : counts) cm += c;
  cm /= static_cast<double>(counts.size());
  for (int c : counts) cv += (c - cm) * (c - cm);
  cv /= static_cast<double>(counts.size() - 1);
  EXPECT_NEAR(cm, 100, 2);
  EXPECT_NEAR(cv / cm, 1.0, 0.1);
}

TEST(ServeSchedule, StreamsSplitTheRateAndConstantInterleaves) {
  ArrivalSchedule a(Arrival::constant, 100, 0, 2), b(Arrival::constant, 100, 1, 2);
  EXPECT_EQ(a.next(), 0U);
  EXPECT_EQ(b.next(), 10000000U);
  EXPECT_EQ(a.next(), 20000000U);
  EXPECT_EQ(b.next(), 30000000U);
  // Two Poisson streams of a 1000/s total: each about 500/s.
  ArrivalSchedule p0(Arrival::poisson, 1000, 0, 2, 9), p1(Arrival::poisson, 1000, 1, 2, 9);
  std::uint64_t last0 = 0, last1 = 0;
  for (int i = 0; i < 50000; ++i) {
    last0 = p0.next();
    last1 = p1.next();
  }
  EXPECT_NEAR(static_cast<double>(last0) / 1e9, 100.0, 2.0);
  EXPECT_NEAR(static_cast<double>(last1) / 1e9, 100.0, 2.0);
  Arrival k;
  EXPECT_TRUE(parse_arrival("poisson", k));
  EXPECT_EQ(k, Arrival::poisson);
  EXPECT_FALSE(parse_arrival("bursty", k));
}

}  // namespace
}  // namespace plumb
