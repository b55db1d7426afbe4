// The pure parts of `plumb bench ort`: the sweep plan from the options and the CPUs granted, the
// nearest-rank percentile, and the cgroup cpu.stat throttling counters (v1 and v2 samples).
#include <gtest/gtest.h>

#include "bench/ort.h"

namespace plumb {
namespace {

TEST(OrtPlan, DefaultsSweepUpToTheCpusGrantedAndOptionsAreChecked) {
  BenchOptions o;
  auto p = make_ort_plan(o, 6.0);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->intra, (std::vector<int>{0, 1, 2, 4, 6}));
  EXPECT_EQ(p->parallel, (std::vector<bool>{false, true}));
  EXPECT_EQ(p->batches, std::vector<int>{1});
  auto q = make_ort_plan(o, 0.5);  // a half-CPU quota still tries one thread
  ASSERT_TRUE(q);
  EXPECT_EQ(q->intra, (std::vector<int>{0, 1}));
  o.ort = {{"intra", "1,3"}, {"exec-mode", "parallel"}, {"batch", "1,8"}, {"ort-rate", "250"}};
  auto r = make_ort_plan(o, 4.0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->intra, (std::vector<int>{1, 3}));
  EXPECT_EQ(r->parallel, std::vector<bool>{true});
  EXPECT_EQ(r->batches, (std::vector<int>{1, 8}));
  EXPECT_DOUBLE_EQ(r->rate, 250.0);
  for (auto bad : std::vector<std::map<std::string, std::string>>{
           {{"intra", "x"}}, {{"exec-mode", "fast"}}, {{"batch", "0"}}, {{"ort-rate", "-1"}}, {{"intra", "2000"}}}) {
    o.ort = bad;
    EXPECT_FALSE(make_ort_plan(o, 4.0)) << bad.begin()->first;
  }
}

TEST(OrtPlan, NearestRankPercentiles) {
  std::vector<double> ns;
  for (int i = 1; i <= 100; ++i) ns.push_back(i * 1e6);  // 1..100 ms
  EXPECT_DOUBLE_EQ(percentile_ms(ns, 0.99), 99.0);
  EXPECT_DOUBLE_EQ(percentile_ms(ns, 0.50), 50.0);
  EXPECT_DOUBLE_EQ(percentile_ms({7e6}, 0.99), 7.0);
  EXPECT_DOUBLE_EQ(percentile_ms({}, 0.99), 0.0);
}

TEST(OrtPlan, CpuStatThrottlingCountersOfBothCgroupVersions) {
  // cgroup v1 cpu.stat (Linux 6.x, with burst fields): throttled_time in nanoseconds.
  auto v1 = parse_cpu_throttle("nr_periods 30\nnr_throttled 5\nthrottled_time 111000000\nnr_bursts 0\nburst_time 0\n");
  EXPECT_TRUE(v1.ok);
  EXPECT_EQ(v1.nr_throttled, 5u);
  EXPECT_EQ(v1.throttled_us, 111000u);
  // cgroup v2 cpu.stat: throttled_usec.
  auto v2 = parse_cpu_throttle("usage_usec 8000\nuser_usec 6000\nsystem_usec 2000\nnr_periods 12\nnr_throttled 3\nthrottled_usec 4200\n");
  EXPECT_TRUE(v2.ok);
  EXPECT_EQ(v2.throttled_us, 4200u);
  EXPECT_FALSE(parse_cpu_throttle("usage_usec 8000\n").ok);  // cpu controller without bandwidth control
}

}  // namespace
}  // namespace plumb
