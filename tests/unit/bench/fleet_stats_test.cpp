// Robust outlier maths of `plumb fleet` and the network sweep's plan and verdict.
#include "bench/fleet_stats.h"

#include <set>

#include <gtest/gtest.h>

namespace plumb {

namespace {

FleetMetric metric(const std::vector<double>& values, bool higher_is_better = true) {
  FleetMetric m{"membw.copy.all", "GB/s", higher_is_better, {}};
  for (std::size_t i = 0; i < values.size(); ++i) m.samples.push_back({"n" + std::to_string(i + 1), values[i]});
  return m;
}

FleetPair pair(const std::string& a, const std::string& b, int pass, double gbps) { return {a, b, pass, gbps, 5.0, ""}; }

}  // namespace

TEST(FleetStats, MedianAndMad) {
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(mad_of({1, 2, 3, 4, 100}, 3), 1);
}

TEST(FleetStats, SlowNodeIsAnOutlier) {
  // median 100, MAD 1 -> z of 80 is 0.6745 * -20 / 1 = -13.5; 20 % below the median.
  auto out = find_outliers(metric({100, 101, 99, 100, 102, 98, 80}), OutlierRule{});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].host, "n7");
  EXPECT_NEAR(out[0].deviation, -0.20, 1e-9);
  EXPECT_NEAR(out[0].z, -13.49, 0.01);
}

TEST(FleetStats, BothConditionsAreNeeded) {
  // 9 % below the median: a robust outlier, but within the 10 % band.
  EXPECT_TRUE(find_outliers(metric({100, 100, 100, 100, 100, 100, 91}), OutlierRule{}).empty());
  // 30 % below, but the fleet is so scattered that the z-score stays above -3.5.
  EXPECT_TRUE(find_outliers(metric({100, 60, 140, 70, 130, 80, 70}), OutlierRule{}).empty());
  OutlierRule loose;
  loose.below_fraction = 0.05;
  EXPECT_EQ(find_outliers(metric({100, 100, 100, 100, 100, 100, 91}), loose).size(), 1u);
}

TEST(FleetStats, MadIsFlooredAtOnePercentOfTheMedian) {
  // Identical nodes (MAD 0): without the floor any difference would be an infinite z-score.
  // MAD floor 1.0 -> z of 89 is -7.4, 11 % below: an outlier; 95 is 5 % below: not.
  auto out = find_outliers(metric({100, 100, 100, 100, 100, 95, 89}), OutlierRule{});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].host, "n7");
  EXPECT_NEAR(out[0].z, 0.6745 * -11 / 1.0, 1e-9);
}

TEST(FleetStats, FewerThanFiveNodesGiveNoStatisticalVerdict) {
  EXPECT_TRUE(find_outliers(metric({100, 100, 100, 10}), OutlierRule{}).empty());
  EXPECT_EQ(find_outliers(metric({100, 100, 100, 100, 10}), OutlierRule{}).size(), 1u);
}

TEST(FleetStats, LowerIsBetterFlagsTheHighValue) {
  auto out = find_outliers(metric({1.0, 1.0, 1.01, 0.99, 1.0, 1.5}, false), OutlierRule{});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].host, "n6");
  EXPECT_LT(out[0].z, -3.5);
  EXPECT_TRUE(find_outliers(metric({1.0, 1.0, 1.01, 0.99, 1.0, 0.5}, false), OutlierRule{}).empty());
}

TEST(FleetSweep, RingAndRounds) {
  EXPECT_TRUE(ring_pairs(1).empty());
  EXPECT_EQ(ring_pairs(2).size(), 1u);
  auto pairs = ring_pairs(5);
  ASSERT_EQ(pairs.size(), 5u);
  EXPECT_EQ(pairs[4], RankPair(4, 0));
  auto rounds = schedule_rounds(pairs);
  std::size_t total = 0;
  for (const auto& r : rounds) {
    std::set<int> seen;
    for (const auto& [a, b] : r) {
      EXPECT_TRUE(seen.insert(a).second);
      EXPECT_TRUE(seen.insert(b).second);
    }
    total += r.size();
  }
  EXPECT_EQ(total, 5u);
  EXPECT_EQ(rounds.size(), 3u);  // an odd ring needs three rounds
}

TEST(FleetSweep, SecondPassNamesTheBadEnd) {
  std::vector<std::string> hosts{"a", "b", "c", "d", "e"};
  FleetNetwork net;
  net.status = "measured";
  net.loopback = true;
  // c is slow: the pairs b->c and c->d are slow in the ring.
  net.pairs = {pair("a", "b", 1, 10), pair("b", "c", 1, 2), pair("c", "d", 1, 2.5), pair("d", "e", 1, 10), pair("e", "a", 1, 9)};
  auto plan = second_pass_pairs(net, hosts, 0.5);
  // Suspects b, c, d against the known-good a and e.
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0], RankPair(1, 0));
  EXPECT_EQ(plan[1], RankPair(2, 4));
  EXPECT_EQ(plan[2], RankPair(3, 0));
  net.pairs.push_back(pair("b", "a", 2, 10));
  net.pairs.push_back(pair("c", "e", 2, 1.5));
  net.pairs.push_back(pair("d", "a", 2, 9.5));
  SweepVerdict v = judge_sweep(net, 0.5);
  EXPECT_DOUBLE_EQ(v.reference, 9);
  ASSERT_EQ(v.bad_hosts.size(), 1u);
  EXPECT_EQ(v.bad_hosts[0], "c");
  EXPECT_TRUE(v.unresolved_pairs.empty());
}

TEST(FleetSweep, LineRateIsTheReferenceOffLoopback) {
  FleetNetwork net;
  net.line_rate_gbytes_per_s = 50;  // 400 Gb/s
  net.pairs = {pair("a", "b", 1, 30), pair("b", "a", 1, 30)};
  EXPECT_DOUBLE_EQ(sweep_reference(net), 50);
  EXPECT_TRUE(pair_slow(net.pairs[0], 50, 0.8));
  // Both ends suspect, nobody known good: the pair stays unresolved.
  EXPECT_TRUE(second_pass_pairs(net, {"a", "b"}, 0.8).empty());
  EXPECT_EQ(judge_sweep(net, 0.8).unresolved_pairs.size(), 2u);
  net.loopback = true;
  EXPECT_DOUBLE_EQ(sweep_reference(net), 30);
}

TEST(FleetSweep, FailedExchangeIsSlow) {
  FleetPair p = pair("a", "b", 1, 0);
  p.error = "timed out";
  EXPECT_TRUE(pair_slow(p, 0, 0.5));
}

}  // namespace plumb
