// Statistics, knee finding, DataLoader advice, bus bandwidth and comparison verdict arithmetic.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench/compare.h"
#include "bench/gpu_plan.h"
#include "bench/membw.h"
#include "bench/stats.h"
#include "bench/step.h"

namespace plumb {
namespace {

TEST(BenchStats, MedianMinMaxAndCvFromInjectedSamples) {
  BenchMetric m = make_metric("x", "GB/s", true, {14, 10, 12});
  EXPECT_EQ(m.samples, 3);
  EXPECT_DOUBLE_EQ(m.median, 12);
  EXPECT_DOUBLE_EQ(m.min, 10);
  EXPECT_DOUBLE_EQ(m.max, 14);
  // mean 12, sample standard deviation 2 -> CV 16.67 %
  EXPECT_NEAR(m.cv_pct, 100.0 * 2 / 12, 1e-9);
  EXPECT_DOUBLE_EQ(median_of({1, 2, 3, 4}), 2.5);
  EXPECT_DOUBLE_EQ(cv_pct_of({5}), 0);
  EXPECT_DOUBLE_EQ(cv_pct_of({0, 0}), 0);
  EXPECT_EQ(make_metric("e", "u", true, {}).samples, 0);
}

TEST(BenchKnee, FindsTheFirstLevelWhoseSuccessorGainsLessThanFivePercent) {
  // 1, 2, 4, 8, 16 readers: big gains, then +3 %.
  Knee k = find_knee({100, 190, 350, 360, 365});
  EXPECT_EQ(k.index, 2u);
  EXPECT_FALSE(k.still_scaling);
  // Exactly 5 % is still a gain worth having.
  EXPECT_EQ(find_knee({100, 105, 106}).index, 1u);
  // Falls after a peak: the knee is the peak.
  EXPECT_EQ(find_knee({100, 200, 150}).index, 1u);
  // Flat from the start.
  EXPECT_EQ(find_knee({100, 101, 102}).index, 0u);
  Knee s = find_knee({100, 200, 400});
  EXPECT_EQ(s.index, 2u);
  EXPECT_TRUE(s.still_scaling);
  EXPECT_FALSE(find_knee({42}).still_scaling);
}

TEST(BenchKnee, ReaderLevelsEndAtTwiceTheCpus) {
  EXPECT_EQ(reader_levels(1), (std::vector<int>{1, 2}));
  EXPECT_EQ(reader_levels(2), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(reader_levels(3), (std::vector<int>{1, 2, 4, 6}));
  EXPECT_EQ(reader_levels(8), (std::vector<int>{1, 2, 4, 8, 16}));
}

TEST(BenchAdvice, RuleOfThumbAndDisagreement) {
  // The worked example: 3 GB/s, 2 MB per image -> 1500, capped at 2 x 16 cores = 32.
  EXPECT_EQ(rule_of_thumb_workers(16, 3e9, 2e6), 32);
  // Slow storage: 200 MB/s of 40 MB files -> 5.
  EXPECT_EQ(rule_of_thumb_workers(16, 200e6, 40e6), 5);
  EXPECT_FALSE(rule_of_thumb_workers(16, std::nullopt, 1e6).has_value());
  EXPECT_FALSE(rule_of_thumb_workers(16, 1e9, 0).has_value());

  DataloaderAdvice a = advise_dataloader({1, 2, 4, 8, 16, 32}, {100, 190, 350, 360, 365, 366}, 16, 3e9, 2e6, true);
  EXPECT_EQ(a.num_workers, 4);
  EXPECT_EQ(a.prefetch_factor, 2);
  EXPECT_TRUE(a.pin_memory);
  EXPECT_EQ(a.rule_of_thumb, 32);
  EXPECT_TRUE(a.disagrees);  // 32 vs 4
  DataloaderAdvice b = advise_dataloader({1, 2, 4}, {100, 190, 350}, 2, 1e6, 1e6, false);
  EXPECT_TRUE(b.still_scaling);
  EXPECT_EQ(b.num_workers, 4);
  EXPECT_EQ(b.prefetch_factor, 4);
  EXPECT_FALSE(b.pin_memory);
  EXPECT_EQ(b.rule_of_thumb, 1);  // 1 MB/s / 1 MB
  EXPECT_TRUE(b.disagrees);
  DataloaderAdvice c = advise_dataloader({1, 2, 4}, {100, 190, 191}, 2, 4e9, 1e6, false);
  EXPECT_EQ(c.num_workers, 2);
  EXPECT_EQ(c.rule_of_thumb, 4);
  EXPECT_FALSE(c.disagrees);
}

TEST(BenchGpuMath, BusBandwidthAsNcclTestsDefinesIt) {
  EXPECT_DOUBLE_EQ(algbw_bytes_per_s(1e9, 0.01), 1e11);
  EXPECT_DOUBLE_EQ(allreduce_busbw(100, 8), 175);  // 2 x 7 / 8
  EXPECT_DOUBLE_EQ(allreduce_busbw(100, 2), 100);
  EXPECT_DOUBLE_EQ(allreduce_busbw(100, 1), 0);
  EXPECT_DOUBLE_EQ(algbw_bytes_per_s(1, 0), 0);
  EXPECT_DOUBLE_EQ(gemm_tflops(8192, 8192, 8192, 1.0), 2.0 * 8192.0 * 8192 * 8192 / 1e12);
  auto sizes = allreduce_sizes(64u << 20);
  EXPECT_EQ(sizes, (std::vector<std::uint64_t>{1u << 20, 4u << 20, 16u << 20, 64u << 20}));
  EXPECT_EQ(nccl_version_string(21803), "2.18.3");
  EXPECT_EQ(nccl_version_string(2804), "2.8.4");
  EXPECT_EQ(nccl_version_string(22707), "2.27.7");
  EXPECT_EQ(nccl_version_string(0), "unknown");
}

TEST(BenchGpuMath, GemmTypesFromTheDtypeOption) {
  auto all = gemm_types("");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 3u);
  auto two = gemm_types("bf16,fp32");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->at(0).name, "bf16");
  EXPECT_EQ(two->at(0).data_type, 14);      // CUDA_R_16BF
  EXPECT_EQ(gemm_types("tf32")->at(0).compute_type, 77);  // CUBLAS_COMPUTE_32F_FAST_TF32
  auto bad = gemm_types("fp64");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("fp64"), std::string::npos);
}

TEST(BenchMembw, PlanKeepsArraysBeyondTheCacheAndWithinMemory) {
  MembwPlan p = plan_membw(0, 32u << 20, 2, 1, 64ull << 30, false);
  EXPECT_EQ(p.single_bytes, 256u << 20);
  EXPECT_EQ(p.per_thread_bytes, 128u << 20);
  // A huge last-level cache raises the array size to 4 x LLC.
  EXPECT_EQ(plan_membw(0, 256u << 20, 1, 1, 64ull << 30, false).single_bytes, 1024u << 20);
  // Never more than a quarter of RAM for the three arrays.
  EXPECT_LE(plan_membw(8ull << 30, std::nullopt, 1, 1, 4ull << 30, false).single_bytes, (4ull << 30) / 12);
  EXPECT_EQ(plan_membw(1u << 20, std::nullopt, 1, 1, 64ull << 30, false).single_bytes, 1u << 20);
  EXPECT_EQ(plan_membw(0, std::nullopt, 1, 1, 64ull << 30, true).single_bytes, 64u << 20);
}

TEST(BenchStep, SweepCoversWorkersPinAndPrefetch) {
  auto cpu = step_sweep({}, 4, false);
  // 0, then 2 and 4 workers with prefetch 2 and 4; pin_memory only with a GPU.
  ASSERT_EQ(cpu.size(), 5u);
  EXPECT_EQ(step_key(cpu[0]), "nw0.pin0.pf0");
  EXPECT_EQ(step_key(cpu[4]), "nw4.pin0.pf4");
  auto gpu = step_sweep({0, 8}, 4, true);
  ASSERT_EQ(gpu.size(), 6u);
  EXPECT_EQ(step_key(gpu[1]), "nw0.pin1.pf0");
  EXPECT_EQ(step_key(gpu[5]), "nw8.pin1.pf4");
}

TEST(BenchCompare, VerdictMathFollowsTheReportTemplateExample) {
  // The health report template's baseline: 0.182 s/step healthy, 0.241 s/step now: +32.4 %, a failure with the 25 % default.
  auto base = make_metric("step.best", "s/step", false, {0.182, 0.182, 0.182});
  auto cur = make_metric("step.best", "s/step", false, {0.241, 0.241, 0.241});
  auto rows = compare_metrics({base}, {cur}, {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(format_change(rows[0].change_pct), "+32.4 %");
  EXPECT_NEAR(rows[0].worse_pct, 32.4, 0.05);
  EXPECT_EQ(rows[0].verdict, Verdict::fail);
  EXPECT_FALSE(rows[0].within_noise);
  // Its optimised figure, 0.195 s/step: +7.1 %, acceptable.
  auto opt = make_metric("step.best", "s/step", false, {0.195});
  auto r2 = compare_metrics({base}, {opt}, {});
  EXPECT_EQ(format_change(r2[0].change_pct), "+7.1 %");
  EXPECT_EQ(r2[0].verdict, Verdict::same);
}

TEST(BenchCompare, DirectionThresholdsNoiseAndMissingMetrics) {
  auto b = [](const char* n, double v, double cv = 0) {
    BenchMetric m = make_metric(n, "GB/s", true, {v});
    m.cv_pct = cv;
    return m;
  };
  CompareLimits lim{10, 25};
  auto rows = compare_metrics({b("a", 100), b("b", 100), b("c", 100), b("d", 100, 10), b("gone", 1)},
                              {b("a", 85), b("b", 70), b("c", 130), b("d", 85, 2), b("new", 1)}, lim);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].verdict, Verdict::warn);   // -15 % bandwidth
  EXPECT_EQ(rows[1].verdict, Verdict::fail);   // -30 %
  EXPECT_EQ(rows[2].verdict, Verdict::better); // +30 %
  EXPECT_EQ(rows[3].verdict, Verdict::warn);
  EXPECT_TRUE(rows[3].within_noise);           // 15 % change, noise 2 x 10 %
  EXPECT_EQ(rows[4].verdict, Verdict::only_current);
  EXPECT_EQ(rows[5].verdict, Verdict::only_baseline);
  EXPECT_EQ(format_change(std::nullopt), "n/a");
  EXPECT_EQ(format_change(-3.0), "-3.0 %");
  EXPECT_FALSE(change_pct(0, 5).has_value());
}

TEST(BenchCompare, EnvironmentDifferencesAndPointers) {
  auto d = environment_diff({{"kernel", "6.1"}, {"driver", "535"}, {"same", "x"}}, {{"kernel", "6.5"}, {"same", "x"}, {"torch", "2.1"}});
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].key, "driver");
  EXPECT_EQ(d[0].current, "-");
  EXPECT_EQ(d[1].key, "kernel");
  EXPECT_EQ(d[2].baseline, "-");
  EXPECT_NE(regression_pointers("storage.seq_read.mb_per_s").en.find("scheduler"), std::string::npos);
  EXPECT_FALSE(regression_pointers("h2d.pinned.h2d.gpu0").zh.empty());
  EXPECT_FALSE(regression_pointers("unknown").en.empty());
  auto ids = regression_l3_ids("storage.rand_read.iops");
  EXPECT_NE(std::find(ids.begin(), ids.end(), "l3.storage.io_scheduler"), ids.end());
  EXPECT_TRUE(regression_l3_ids("unknown.metric").empty());
}

TEST(BenchCompare, TheHostsOwnDriftBetweenRunsIsTheNoiseBandWhenThreeRunsAreKnown) {
  EXPECT_DOUBLE_EQ(spread_pct_of({30, 24, 27}), 100.0 * 6 / 27);
  EXPECT_DOUBLE_EQ(spread_pct_of({30}), 0);
  EXPECT_DOUBLE_EQ(spread_pct_of({}), 0);
  EXPECT_DOUBLE_EQ(spread_pct_of({0, 0, 0}), 0);
  auto m = [](const char* n, double v) { return make_metric(n, "GB/s", true, {v, v}); };
  // Earlier medians of 24-30 GB/s on this host: 22 %. A 15 % drop is within it; a 30 % drop is not.
  std::vector<MetricRuns> earlier = {{"a", {1, 2, 3}, {30, 24, 27}}, {"b", {1, 2, 3}, {30, 24, 27}},
                                     {"c", {2, 3}, {30, 24}}};
  auto rows = compare_metrics({m("a", 100), m("b", 100), m("c", 100), m("d", 100)},
                              {m("a", 85), m("b", 70), m("c", 85), m("d", 85)}, {10, 25}, &earlier);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].verdict, Verdict::warn);  // the verdict stands; the finding says why it may be noise
  EXPECT_TRUE(rows[0].within_drift);
  EXPECT_EQ(rows[0].drift_runs, 3);
  EXPECT_NEAR(rows[0].drift_pct, 22.2, 0.05);
  EXPECT_FALSE(rows[1].within_drift);
  EXPECT_EQ(rows[1].verdict, Verdict::fail);
  EXPECT_EQ(rows[2].drift_runs, 0);  // two earlier runs are one difference: not judged
  EXPECT_FALSE(rows[2].within_drift);
  EXPECT_EQ(rows[3].drift_runs, 0);  // no earlier run at all
  auto plain = compare_metrics({m("a", 100)}, {m("a", 85)}, {10, 25});
  EXPECT_FALSE(plain[0].within_drift);
  EXPECT_EQ(medians_text({29.123, 31.4, 120.6}, "GB/s"), "29.12 31.4 121 GB/s");
  EXPECT_EQ(run_ids_text({3, 5, 9}), "3, 5, 9");
}

}  // namespace
}  // namespace plumb
