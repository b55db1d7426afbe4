// Watch recordings are user input: subject counts are capped per sample and a large recording
// imports in time linear in its size.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "analyze/watch_recording.h"

namespace plumb::watch {
namespace {

const std::string kHead = "# plumb-watch 1\nt_s,metric,subject,value\n";

TEST(RecordingLimits, ManyGpusImportInLinearTime) {
  // 50,000 GPUs in one sample: past the cap, so refused; 1,000 GPUs x 50 samples: read, fast.
  std::string over = kHead;
  for (int i = 0; i < 50000; ++i) over += "0,gpu_busy_pct,gpu" + std::to_string(i) + ",1\n";
  auto r = facts_from_recording(over, "g.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("more than 1024 GPUs"), std::string::npos) << r.error().message;

  std::string big = kHead;
  for (int t = 0; t < 50; ++t) {
    for (int i = 0; i < 1000; ++i) big += std::to_string(t) + ",gpu_busy_pct,gpu" + std::to_string(i) + ",1\n";
  }
  auto start = std::chrono::steady_clock::now();
  auto ok = facts_from_recording(big, "big.csv");
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(ok->watch.samples.size(), 50u);
  EXPECT_EQ(ok->watch.samples.back().gpus.size(), 1000u);
  EXPECT_EQ(ok->watch.samples.back().gpus[999].bus_id, "gpu999");
  EXPECT_LT(ms, 5000);
}

TEST(RecordingLimits, FarCpuIndexIsRefusedNotAllocated) {
  std::string text = kHead;
  for (int t = 0; t < 2000; ++t) text += std::to_string(t) + ",core_busy_pct,cpu65536,1\n";
  auto r = facts_from_recording(text, "c.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("c.csv:3: cpu65536"), std::string::npos) << r.error().message;
  auto skip = facts_from_recording(kHead + "0,core_busy_pct,cpu0,1\n0,core_busy_pct,cpu4000,1\n", "s.csv");
  ASSERT_FALSE(skip.ok());
  // In order, every CPU up to the cap is fine.
  std::string dense = kHead;
  for (int i = 0; i < 8192; ++i) dense += "0,core_busy_pct,cpu" + std::to_string(i) + ",1\n";
  auto d = facts_from_recording(dense, "d.csv");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->watch.samples[0].core_busy_pct.size(), 8192u);
  auto past = facts_from_recording(dense + "0,core_busy_pct,cpu8192,1\n", "p.csv");
  ASSERT_FALSE(past.ok());
}

TEST(RecordingLimits, JsonLinesSubjectsAreCappedToo) {
  std::string gpus;
  for (int i = 0; i < 1025; ++i) gpus += std::string(i ? "," : "") + "{\"bus_id\":\"g" + std::to_string(i) + "\"}";
  auto r = facts_from_recording("{\"plumb_watch\":1}\n{\"t_s\":0,\"gpus\":[" + gpus + "]}\n{}\n", "j.jsonl");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("j.jsonl:2: more than 1024 GPUs"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace plumb::watch
