// The bench and baseline rules: a passing and a failing (or warning) case each, and skips.
#include <gtest/gtest.h>

#include "bench/stats.h"
#include "core/catalog.h"
#include "core/registry.h"

namespace plumb {
namespace {

std::vector<Finding> judge_bench(const std::string& id, const Facts& f) {
  Selection sel;
  sel.only = {id};
  auto out = judge(f, Thresholds(), sel);
  for (const auto& x : out) EXPECT_NE(find_entry(x.id), nullptr) << x.id;
  return out;
}

BenchResult result(const std::string& bench, std::vector<BenchMetric> ms) {
  BenchResult r;
  r.bench = bench;
  r.metrics = std::move(ms);
  return r;
}

BenchMetric m(const std::string& n, double v, const std::string& unit = "GB/s", bool higher = true) {
  return make_metric(n, unit, higher, {v, v, v});
}

TEST(BenchRules, MembwScalingWarnsOnlyWhenAllCpusBarelyBeatOne) {
  Facts f;
  auto r = result("membw", {m("membw.copy.1t", 10), m("membw.copy.all", 11), m("membw.triad.1t", 11), m("membw.triad.all", 12)});
  r.params["threads_all"] = "16";
  f.bench.results.push_back(r);
  auto bad = judge_bench("l2.bench.membw", f);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].status, Status::warn);
  EXPECT_EQ(bad[0].variant, "no_scaling");
  EXPECT_NE(finding_message(bad[0], Lang::en).find("does not scale"), std::string::npos);
  f.bench.results[0].metrics[1] = m("membw.copy.all", 80);
  auto good = judge_bench("l2.bench.membw", f);
  EXPECT_EQ(good[0].status, Status::info);
  EXPECT_NE(finding_message(good[0], Lang::zh).find("GB/s"), std::string::npos);
}

TEST(BenchRules, StorageSlowerThanTrainingNeeds) {
  Facts f;
  auto r = result("storage", {m("storage.seq_read.mb_per_s", 120, "MB/s"), m("storage.rand_read.iops", 900, "IOPS")});
  r.params["path"] = "/data";
  f.bench.results.push_back(r);
  auto slow = judge_bench("l2.bench.storage", f);
  EXPECT_EQ(slow[0].status, Status::warn);
  EXPECT_EQ(finding_verify(slow[0]), "plumb bench storage /data");
  f.bench.results[0].metrics[0] = m("storage.seq_read.mb_per_s", 2500, "MB/s");
  EXPECT_EQ(judge_bench("l2.bench.storage", f)[0].status, Status::info);
}

TEST(BenchRules, DataloadVariants) {
  Facts f;
  auto r = result("dataload", {});
  r.params["dir"] = "/data/train";
  r.derived = {{"knee_readers", 4}, {"knee_files_per_s", 900}, {"num_workers", 4}, {"prefetch_factor", 2}, {"cores", 16},
               {"rule_of_thumb_workers", 32}, {"rule_disagrees", 1}, {"mean_file_bytes", 2e6}, {"storage_bytes_per_s", 3e9}};
  r.rows.push_back({{{"readers", "1"}}, {{"files_per_s", 300}, {"mb_per_s", 600}}});
  r.rows.push_back({{{"readers", "2"}}, {{"files_per_s", 900}, {"mb_per_s", 1800}}});
  f.bench.results.push_back(r);
  auto d = judge_bench("l2.bench.dataload", f);
  EXPECT_EQ(d[0].status, Status::info);
  EXPECT_EQ(d[0].variant, "disagree");
  EXPECT_NE(finding_message(d[0], Lang::en).find("disagree"), std::string::npos);
  EXPECT_NE(finding_message(d[0], Lang::en).find("num_workers=4"), std::string::npos);
  f.bench.results[0].derived["still_scaling"] = 1;
  EXPECT_EQ(judge_bench("l2.bench.dataload", f)[0].variant, "still_scaling");
  f.bench.results[0].derived["still_scaling"] = 0;
  f.bench.results[0].derived["knee_readers"] = 1;
  auto flat = judge_bench("l2.bench.dataload", f);
  EXPECT_EQ(flat[0].status, Status::warn);
  EXPECT_EQ(flat[0].variant, "flat");
}

TEST(BenchRules, StepWarnsWhenTheDefaultLoaderIsMuchSlower) {
  Facts f;
  auto r = result("step", {m("step.best", 0.1, "s/step", false)});
  r.derived = {{"best_s_per_step", 0.1}, {"best_num_workers", 4}, {"default_s_per_step", 0.15}, {"default_slower_pct", 50}};
  f.bench.results.push_back(r);
  auto w = judge_bench("l2.bench.step", f);
  EXPECT_EQ(w[0].status, Status::warn);
  EXPECT_NE(finding_message(w[0], Lang::en).find("50 % slower"), std::string::npos);
  f.bench.results[0].derived["default_slower_pct"] = 3;
  EXPECT_EQ(judge_bench("l2.bench.step", f)[0].status, Status::info);
}

TEST(BenchRules, GpuBenchmarksSkipWithTheReasonAndJudgeCopies) {
  Facts f;
  BenchResult s;
  s.bench = "h2d";
  s.status = "skipped";
  s.reason = "libcudart.so present but libcuda.so.1 not loadable: no NVIDIA driver";
  f.bench.results.push_back(s);
  auto sk = judge_bench("l2.bench.h2d", f);
  ASSERT_EQ(sk.size(), 1u);
  EXPECT_EQ(sk[0].status, Status::skip);
  EXPECT_EQ(sk[0].args.at("reason"), s.reason);
  Facts g;
  g.bench.results.push_back(result("h2d", {m("h2d.pinned.h2d.gpu0", 6), m("h2d.pinned.h2d.gpu1", 24)}));
  auto slow = judge_bench("l2.bench.h2d", g);
  EXPECT_EQ(slow[0].status, Status::warn);
  EXPECT_NE(slow[0].args.at("slow").find("gpu0"), std::string::npos);
  EXPECT_EQ(slow[0].args.at("slow").find("gpu1"), std::string::npos);
  g.bench.results[0].metrics[0] = m("h2d.pinned.h2d.gpu0", 25);
  EXPECT_EQ(judge_bench("l2.bench.h2d", g)[0].status, Status::info);
}

TEST(BenchRules, NoiseAndThrottle) {
  Facts f;
  auto r = result("membw", {make_metric("membw.copy.1t", "GB/s", true, {10, 14, 7})});
  r.context.load_before = Fact<double>::of(9.5, "/proc/loadavg");
  BenchGpuState g;
  g.bus_id = "0000:3b:00.0";
  g.throttle_reasons = Fact<std::uint64_t>::of(0x20, "nvmlDeviceGetCurrentClocksEventReasons");
  r.context.gpus_after.push_back(g);
  f.bench.results.push_back(r);
  EXPECT_EQ(judge_bench("l2.bench.noise", f)[0].status, Status::warn);
  auto t = judge_bench("l2.bench.gpu_throttle", f);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].status, Status::warn);
  EXPECT_EQ(t[0].subject, "gpu 0000:3b:00.0");
  f.bench.results[0].metrics[0] = make_metric("membw.copy.1t", "GB/s", true, {10, 10.1, 9.9});
  f.bench.results[0].context.gpus_after[0].throttle_reasons = Fact<std::uint64_t>::of(0x1, "x");  // GpuIdle
  EXPECT_EQ(judge_bench("l2.bench.noise", f)[0].status, Status::pass);
  EXPECT_EQ(judge_bench("l2.bench.gpu_throttle", f)[0].status, Status::pass);
}

// A GPU benchmark that ran beside another job's processes is flagged even when its samples agree:
// steadily shared is still shared.
TEST(BenchRules, NoiseWarnsWhenAnotherJobComputedOnTheGpu) {
  Facts f;
  auto r = result("gemm", {make_metric("gemm.bf16", "TFLOPS", true, {390, 391, 389})});
  BenchGpuState g;
  g.bus_id = "0000:3b:00.0";
  g.other_processes = Fact<std::vector<std::string>>::of({}, "nvmlDeviceGetComputeRunningProcesses_v3");
  r.context.gpus_before.push_back(g);
  g.other_processes = Fact<std::vector<std::string>>::of({"pid 4242 (python3, 70 GiB)"}, "nvmlDeviceGetComputeRunningProcesses_v3");
  r.context.gpus_after.push_back(g);
  f.bench.results.push_back(r);
  auto x = judge_bench("l2.bench.noise", f);
  ASSERT_EQ(x.size(), 1u);
  EXPECT_EQ(x[0].status, Status::warn);
  EXPECT_EQ(x[0].variant, "gpu_busy");
  EXPECT_EQ(x[0].args.at("who"), "0000:3b:00.0: pid 4242 (python3, 70 GiB)");
  EXPECT_NE(finding_message(x[0], Lang::en).find("the figures measure what those jobs left"), std::string::npos);
  f.bench.results[0].context.gpus_after[0].other_processes = Fact<std::vector<std::string>>::none("NVML_ERROR_NOT_SUPPORTED", "x");
  EXPECT_EQ(judge_bench("l2.bench.noise", f)[0].status, Status::pass);
}

TEST(BenchRules, NoiseWarnsWhenRunsDriftApartAlthoughEachRunsSamplesAgree) {
  Facts f;
  f.bench.results.push_back(result("membw", {m("membw.copy.all", 30), m("membw.copy.1t", 24)}));
  // Without the history: judged on the samples alone, and the evidence says why runs were not compared.
  f.bench.earlier = Fact<std::vector<MetricRuns>>::none("history disabled (--no-history)");
  auto alone = judge_bench("l2.bench.noise", f);
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].status, Status::pass);
  ASSERT_FALSE(alone[0].evidence.empty());
  EXPECT_EQ(alone[0].evidence.back().source, "history disabled (--no-history)");
  // One earlier run: one difference is not a spread.
  f.bench.earlier = Fact<std::vector<MetricRuns>>::of({{"membw.copy.all", {7}, {20}}}, "plumb.db");
  auto one = judge_bench("l2.bench.noise", f);
  EXPECT_EQ(one[0].status, Status::pass);
  EXPECT_NE(one[0].evidence.back().value.find("not judged: 0 earlier runs"), std::string::npos) << one[0].evidence.back().value;
  // Earlier medians 20 and 43 GB/s and 30 now: 77 % apart, over the 10 % default.
  f.bench.earlier = Fact<std::vector<MetricRuns>>::of({{"membw.copy.all", {7, 9}, {20, 43}}, {"membw.copy.1t", {7, 9}, {24, 24.5}}}, "plumb.db");
  auto drift = judge_bench("l2.bench.noise", f);
  ASSERT_EQ(drift.size(), 1u);
  EXPECT_EQ(drift[0].status, Status::warn);
  EXPECT_EQ(drift[0].variant, "drift");
  EXPECT_EQ(drift[0].args.at("metric"), "membw.copy.all");
  EXPECT_EQ(drift[0].args.at("drift"), "76.7");
  EXPECT_EQ(drift[0].args.at("runs"), "3");
  EXPECT_EQ(drift[0].evidence.back().source, "plumb.db, runs 7, 9");
  EXPECT_NE(finding_message(drift[0], Lang::en).find("moved by 76.7 % between the last 3 runs on this host"), std::string::npos);
  EXPECT_NE(finding_message(drift[0], Lang::zh).find("76.7%"), std::string::npos);
  // Runs that agree pass; the spread is still shown.
  f.bench.earlier = Fact<std::vector<MetricRuns>>::of({{"membw.copy.all", {7, 9}, {29.5, 30.2}}}, "plumb.db");
  auto steady = judge_bench("l2.bench.noise", f);
  EXPECT_EQ(steady[0].status, Status::pass);
  EXPECT_NE(steady[0].evidence.back().value.find("spread 2.3 %"), std::string::npos) << steady[0].evidence.back().value;
}

TEST(BaselineRules, AChangeWithinTheHostsOwnDriftSaysSoAndShowsTheEarlierRuns) {
  Facts f;
  f.bench.results.push_back(result("membw", {m("membw.copy.all", 26), m("membw.triad.all", 20)}));
  BaselineFacts b;
  b.origin = "run 1 (test.db)";
  b.metrics = {m("membw.copy.all", 31), m("membw.triad.all", 31)};
  f.bench.baseline = Fact<BaselineFacts>::of(b, "test.db");
  // copy.all moved 24-31 GB/s between earlier runs (25 %): its -16 % is within that; triad's -35 % is not.
  f.bench.earlier = Fact<std::vector<MetricRuns>>::of({{"membw.copy.all", {2, 3, 4}, {24, 31, 28}},
                                                      {"membw.triad.all", {2, 3, 4}, {30, 31, 29}}}, "test.db");
  auto rows = judge_bench("l2.baseline.regression", f);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].subject, "membw.copy.all");
  EXPECT_EQ(rows[0].status, Status::info) << "within the host's drift: inconclusive, not a warning";
  EXPECT_EQ(rows[0].variant, "drift");
  EXPECT_NE(finding_message(rows[0], Lang::en).find("within the 25 % this metric moved between the last 3 runs on this host"),
            std::string::npos) << finding_message(rows[0], Lang::en);
  EXPECT_EQ(rows[0].evidence.back().source, "test.db, runs 2, 3, 4");
  EXPECT_EQ(rows[1].subject, "membw.triad.all");
  EXPECT_EQ(rows[1].status, Status::fail);
  EXPECT_EQ(rows[1].variant, "");
  EXPECT_NE(finding_message(rows[1], Lang::en).find("the infrastructure is the suspect"), std::string::npos);
}

// Not like for like: samples that scatter by more than the change, or a baseline measured with
// other settings, give a note that says why, never a warning or failure.
TEST(BaselineRules, ScatteredSamplesOrOtherSettingsAreInconclusive) {
  Facts f;
  auto noisy = result("membw", {make_metric("membw.copy.all", "GB/s", true, {10, 20, 30})});
  noisy.params["size"] = "1048576";
  f.bench.results.push_back(noisy);
  BaselineFacts b;
  b.origin = "run 1 (test.db)";
  b.metrics = {m("membw.copy.all", 31)};
  b.environment["setting.membw.size"] = "1048576";
  f.bench.baseline = Fact<BaselineFacts>::of(b, "test.db");
  auto rows = judge_bench("l2.baseline.regression", f);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, Status::info);
  EXPECT_EQ(rows[0].variant, "noisy");
  EXPECT_NE(finding_message(rows[0], Lang::en).find("the samples scatter by"), std::string::npos) << finding_message(rows[0], Lang::en);

  b.environment["setting.membw.size"] = "67108864";
  f.bench.baseline = Fact<BaselineFacts>::of(b, "test.db");
  auto other = judge_bench("l2.baseline.regression", f);
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].status, Status::info);
  EXPECT_EQ(other[0].variant, "not_comparable");
  EXPECT_EQ(other[0].subject, "membw");
  EXPECT_NE(finding_message(other[0], Lang::en).find("size 67108864 -> 1048576"), std::string::npos) << finding_message(other[0], Lang::en);
  // A baseline that records no settings is compared as before.
  b.environment.clear();
  f.bench.baseline = Fact<BaselineFacts>::of(b, "test.db");
  EXPECT_EQ(judge_bench("l2.baseline.regression", f)[0].variant, "noisy");
}

TEST(BaselineRules, RegressionFailsWithThePointersAndPassesWithinBounds) {
  Facts f;
  f.bench.results.push_back(result("step", {m("step.best", 0.241, "s/step", false)}));
  EXPECT_EQ(judge_bench("l2.baseline.regression", f)[0].status, Status::skip);  // no baseline attached
  BaselineFacts b;
  b.origin = "run 1 (test.db)";
  b.metrics = {m("step.best", 0.182, "s/step", false)};
  b.environment = {{"kernel", "6.1"}};
  f.bench.baseline = Fact<BaselineFacts>::of(b, "test.db");
  auto bad = judge_bench("l2.baseline.regression", f);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].status, Status::fail);
  std::string en = finding_message(bad[0], Lang::en);
  EXPECT_NE(en.find("+32.4 %: the infrastructure is the suspect, look here"), std::string::npos) << en;
  EXPECT_NE(finding_message(bad[0], Lang::zh).find("基础架构是嫌疑对象"), std::string::npos);
  auto env = judge_bench("l2.baseline.environment", f);
  ASSERT_EQ(env.size(), 1u);
  EXPECT_EQ(env[0].status, Status::info);
  f.bench.results[0].metrics[0] = m("step.best", 0.19, "s/step", false);
  auto ok = judge_bench("l2.baseline.regression", f);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].status, Status::pass);
  Facts nothing;
  EXPECT_EQ(judge_bench("l2.baseline.regression", nothing)[0].status, Status::skip);
  EXPECT_TRUE(judge_bench("l2.baseline.environment", nothing).empty());
}

}  // namespace
}  // namespace plumb
