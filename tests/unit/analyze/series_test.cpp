// Time-series detectors on synthetic series with known answers, including noise and edge cases.
#include <gtest/gtest.h>

#include <cmath>

#include "analyze/series.h"

namespace plumb::watch {
namespace {

std::vector<double> times(std::size_t n, double step = 1.0) {
  std::vector<double> t;
  for (std::size_t i = 0; i < n; ++i) t.push_back(static_cast<double>(i) * step);
  return t;
}

// Deterministic noise in [-a, a] (no RNG: tests must be reproducible).
double noise(std::size_t i, double a) { return a * std::sin(static_cast<double>(i) * 12.9898) ; }

TEST(Stats, MeanPercentileShare) {
  EXPECT_DOUBLE_EQ(mean({}), 0);
  EXPECT_DOUBLE_EQ(mean({1, 2, 3}), 2);
  EXPECT_DOUBLE_EQ(percentile({10, 20, 30, 40, 50}, 0), 10);
  EXPECT_DOUBLE_EQ(percentile({10, 20, 30, 40, 50}, 50), 30);
  EXPECT_DOUBLE_EQ(percentile({10, 20, 30, 40, 50}, 10), 14);
  EXPECT_DOUBLE_EQ(percentile({7}, 10), 7);
  EXPECT_DOUBLE_EQ(share_at_least({94, 95, 99, 10}, 95), 0.5);
  EXPECT_DOUBLE_EQ(share_at_least({}, 95), 0);
}

TEST(Sawtooth, FindsAmplitudeAndPeriodOfARegularSawtooth) {
  // Rises 20 -> 60 over 4 ticks then drops back: period 5 s, amplitude 40.
  std::vector<double> v;
  for (std::size_t i = 0; i < 30; ++i) v.push_back(20 + 10.0 * static_cast<double>(i % 5));
  auto s = find_sawtooth(times(v.size()), v, 8);
  EXPECT_EQ(s.drops, 5);  // the last peak has no drop after it
  EXPECT_DOUBLE_EQ(s.amplitude, 40);
  EXPECT_DOUBLE_EQ(s.period_s, 5);
}

TEST(Sawtooth, NoiseBelowTheAmplitudeIsNotACycle) {
  std::vector<double> v;
  for (std::size_t i = 0; i < 200; ++i) v.push_back(50 + noise(i, 3));
  EXPECT_EQ(find_sawtooth(times(v.size()), v, 8).drops, 0);
}

TEST(Sawtooth, NoisySawtoothStillCounted) {
  std::vector<double> v;
  for (std::size_t i = 0; i < 40; ++i) v.push_back(20 + 10.0 * static_cast<double>(i % 8) + noise(i, 2));
  auto s = find_sawtooth(times(v.size(), 0.5), v, 10);
  EXPECT_EQ(s.drops, 4);
  EXPECT_NEAR(s.amplitude, 70, 5);
  EXPECT_NEAR(s.period_s, 4, 0.6);
}

TEST(Sawtooth, LeakAndEdgeCases) {
  std::vector<double> leak;
  for (std::size_t i = 0; i < 50; ++i) leak.push_back(static_cast<double>(i));
  EXPECT_EQ(find_sawtooth(times(leak.size()), leak, 5).drops, 0);  // monotonic rise: not a sawtooth
  EXPECT_EQ(find_sawtooth({}, {}, 5).drops, 0);
  EXPECT_EQ(find_sawtooth({0, 1}, {1, 100}, 5).drops, 0);
  EXPECT_EQ(find_sawtooth(times(3), {0, 100, 0}, 0).drops, 0);  // no amplitude: nothing to find
  auto one = find_sawtooth(times(3), {0, 100, 0}, 10);
  EXPECT_EQ(one.drops, 1);
  EXPECT_DOUBLE_EQ(one.period_s, 0);  // a single peak has no period
}

TEST(Outlier, OneGpuThreeTimesItsPeers) {
  auto o = find_outlier({100, 110, 400, 90}, 3, 10);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->index, 2u);
  EXPECT_DOUBLE_EQ(o->peers_median, 100);
  EXPECT_DOUBLE_EQ(o->ratio, 4);
}

TEST(Outlier, BalancedSmallOrSingle) {
  EXPECT_FALSE(find_outlier({100, 110, 120, 90}, 3, 10));
  EXPECT_FALSE(find_outlier({5, 0.1}, 3, 10));   // below the floor: too small to matter
  EXPECT_FALSE(find_outlier({1000}, 3, 10));     // needs peers
  auto idle_peers = find_outlier({500, 0, 0}, 3, 10);
  ASSERT_TRUE(idle_peers);
  EXPECT_EQ(idle_peers->index, 0u);
  EXPECT_FALSE(find_outlier({299, 100}, 3, 10));  // just under 3x
  EXPECT_TRUE(find_outlier({300, 100}, 3, 10));   // exactly 3x counts
}

TEST(Episodes, RunsOfSetBits) {
  auto e = find_episodes(times(8), {0, 8, 8, 0, 0, 0x40, 0x48, 0x40});
  ASSERT_EQ(e.size(), 2u);
  EXPECT_DOUBLE_EQ(e[0].start_s, 1);
  EXPECT_DOUBLE_EQ(e[0].end_s, 2);
  EXPECT_EQ(e[1].reasons, 0x48u);
  EXPECT_DOUBLE_EQ(e[1].end_s, 7);  // still open at the end: closed there
  EXPECT_TRUE(find_episodes(times(3), {0, 0, 0}).empty());
}

}  // namespace
}  // namespace plumb::watch
