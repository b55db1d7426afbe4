// Runs the CPU benchmarks briefly through the library and checks structure and sanity (never
// timing thresholds).
#include <gtest/gtest.h>

#include <filesystem>

#include "bench/bench.h"
#include "vendor/cuda_api.h"
#include "vendor/turbojpeg.h"
#include "../../test_util.h"

namespace plumb {
namespace {

const BenchMetric* find(const BenchResult& r, const std::string& n) {
  for (const auto& m : r.metrics) {
    if (m.name == n) return &m;
  }
  return nullptr;
}

TEST(BenchRun, MembwTinyArraysGivePositiveBandwidthAndContext) {
  BenchOptions o;
  o.size_bytes = 1u << 20;
  o.samples = 2;
  o.threads = 2;
  auto r = run_bench(*find_bench("membw"), Context{}, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const BenchMetric* c = find(*r, "membw.copy.1t");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->samples, 2);
  EXPECT_GT(c->median, 0);
  EXPECT_LE(c->min, c->median);
  EXPECT_GE(c->max, c->median);
  EXPECT_NE(find(*r, "membw.triad.1t"), nullptr);
  EXPECT_TRUE(r->context.allowed_cpus.has());
  EXPECT_TRUE(r->context.load_before.has());
  EXPECT_FALSE(r->context.started_at.empty());
  EXPECT_EQ(r->context.versions.at("plumb"), PLUMB_VERSION);
}

TEST(BenchRun, StorageTinyFileLeavesNothingBehind) {
  std::string dir = ::testing::TempDir() + "/plumb-storage-unit-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  BenchOptions o;
  o.target = dir;
  o.size_bytes = 2u << 20;
  o.duration_s = 0.02;
  o.samples = 2;
  o.threads = 2;
  o.warmup = 0;
  auto r = run_bench(*find_bench("storage"), Context{}, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->metrics.size(), 3u);
  EXPECT_GT(find(*r, "storage.seq_read.mb_per_s")->median, 0);
  EXPECT_GT(find(*r, "storage.rand_read.iops")->median, 0);
  EXPECT_FALSE(r->notes.at("direct_io").empty());
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  o.block_bytes = 1000;  // not a multiple of 4096
  EXPECT_FALSE(run_bench(*find_bench("storage"), Context{}, o).ok());
  std::filesystem::remove_all(dir);
}

TEST(BenchRun, DataloadOnTheFixtureDatasetWithDecoding) {
  if (!JpegDecoder::available()) GTEST_SKIP() << JpegDecoder::available().error().message;
  BenchOptions o;
  o.target = test::fixture("bench/dataset");
  o.duration_s = 0.03;
  o.samples = 1;
  o.threads = 2;
  o.decode = true;
  o.cached = true;
  auto r = run_bench(*find_bench("dataload"), Context{}, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->params.at("files"), "7");
  ASSERT_EQ(r->rows.size(), 2u);  // 1 and 2 readers
  EXPECT_GT(r->rows[0].values.at("files_per_s"), 0);
  EXPECT_GE(r->derived.at("knee_readers"), 1);
  EXPECT_GT(r->derived.at("decode_errors"), 0);  // labels.csv is not a JPEG
  EXPECT_NE(find(*r, "dataload.files_per_s.knee"), nullptr);
  o.target = test::fixture("bench/proc-loadavg.txt");
  EXPECT_FALSE(run_bench(*find_bench("dataload"), Context{}, o).ok());
}

TEST(BenchRun, GpuBenchmarksSkipWithAPreciseReasonWithoutAGpu) {
  if (cuda::usable_devices().ok()) GTEST_SKIP() << "a GPU is present";
  for (const char* name : {"h2d", "d2d", "gemm", "allreduce"}) {
    auto r = run_bench(*find_bench(name), Context{}, BenchOptions{});
    ASSERT_TRUE(r.ok()) << name;
    EXPECT_EQ(r->status, "skipped") << name;
    EXPECT_FALSE(r->reason.empty()) << name;
    EXPECT_TRUE(r->reason.find("libcudart") != std::string::npos || r->reason.find("CUDA") != std::string::npos) << r->reason;
  }
}

TEST(BenchRun, RegistryHasEveryBenchmark) {
  for (const char* n : {"membw", "storage", "dataload", "h2d", "d2d", "gemm", "allreduce", "step"}) {
    const BenchInfo* b = find_bench(n);
    ASSERT_NE(b, nullptr) << n;
    EXPECT_FALSE(b->title.en.empty());
    EXPECT_FALSE(b->title.zh.empty());
  }
}

}  // namespace
}  // namespace plumb
