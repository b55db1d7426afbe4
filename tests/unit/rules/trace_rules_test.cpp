// The l2.trace.* rules: a passing and a failing case each, skips with reasons, nothing without a trace.
#include <gtest/gtest.h>

#include "core/catalog.h"
#include "core/registry.h"

namespace plumb {
namespace {

// One rank with `steps` complete steps of 100 ms.
TraceRank rank_with(int steps = 4) {
  TraceRank t;
  t.file = "rank0.json";
  t.rank = 0;
  t.accelerator = "cuda";
  for (int i = 0; i < steps; ++i) {
    TraceStep s;
    s.name = "ProfilerStep#" + std::to_string(i + 1);
    s.number = i + 1;
    s.duration_us = 100000;
    t.steps.push_back(s);
  }
  auto& m = t.summary;
  m.steps = m.complete_steps = steps;
  m.step_time_total_us = 100000.0 * steps;
  m.step_time_median_us = m.step_time_min_us = m.step_time_max_us = 100000;
  m.dataloader_share = 0.05;
  m.copy_source = "gpu_memcpy";
  m.copy_share = 0.02;
  m.h2d_us = 0;
  m.gpu_busy_us = 0.95 * m.step_time_total_us;
  m.gpu_idle_us = 0.05 * m.step_time_total_us;
  m.gpu_idle_share = 0.05;
  m.comm_us = 1000;
  m.comm_overlap_us = 900;
  m.comm_overlap = 0.9;
  return t;
}

std::vector<Finding> judge_trace(const std::string& id, const TraceFacts& tf) {
  Facts f;
  f.trace = tf;
  Selection sel;
  sel.only = {id};
  return judge(f, Thresholds{}, sel);
}

Status trace_status_of(const std::string& id, const TraceRank& t) {
  TraceFacts tf;
  tf.collected = true;
  tf.traces = {t};
  auto out = judge_trace(id, tf);
  EXPECT_EQ(out.size(), 1u) << id;
  return out.empty() ? Status::info : out[0].status;
}

TEST(TraceRules, NothingWithoutATrace) {
  for (const auto& r : rules()) {
    if (r.id.rfind("l2.trace.", 0) != 0) continue;
    EXPECT_TRUE(judge_trace(r.id, TraceFacts{}).empty()) << r.id;
    ASSERT_NE(find_entry(r.id), nullptr) << r.id;
    EXPECT_FALSE(find_entry(r.id)->title.zh.empty()) << r.id;
  }
}

TEST(TraceRules, DataLoaderShareWarnsAbove30AndFailsAbove40) {
  auto t = rank_with();
  EXPECT_EQ(trace_status_of("l2.trace.dataloader_share", t), Status::pass);
  t.summary.dataloader_share = 0.3013;
  EXPECT_EQ(trace_status_of("l2.trace.dataloader_share", t), Status::warn);
  t.summary.dataloader_share = 0.45;
  EXPECT_EQ(trace_status_of("l2.trace.dataloader_share", t), Status::fail);
  t.summary.dataloader_share.reset();
  t.summary.unavailable["dataloader_share"] = "no enumerate(DataLoader) spans";
  EXPECT_EQ(trace_status_of("l2.trace.dataloader_share", t), Status::skip);
}

TEST(TraceRules, CopyShareAndPageableCopies) {
  auto t = rank_with();
  EXPECT_EQ(trace_status_of("l2.trace.copy_share", t), Status::pass);
  t.summary.copy_share = 0.25;
  EXPECT_EQ(trace_status_of("l2.trace.copy_share", t), Status::warn);
  t.summary.copy_share = 0.01;
  t.summary.pageable_h2d_count = 6;
  TraceFacts tf;
  tf.collected = true;
  tf.traces = {t};
  auto out = judge_trace("l2.trace.copy_share", tf);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, Status::warn);
  EXPECT_EQ(out[0].variant, "pageable");
  EXPECT_NE(finding_message(out[0], Lang::en).find("6 pageable"), std::string::npos);
}

TEST(TraceRules, GpuIdleWarnsAbove15AndFailsAbove50) {
  auto t = rank_with();
  EXPECT_EQ(trace_status_of("l2.trace.gpu_idle", t), Status::pass);
  t.summary.gpu_idle_share = 0.3;
  EXPECT_EQ(trace_status_of("l2.trace.gpu_idle", t), Status::warn);
  t.summary.gpu_idle_share = 0.6;
  EXPECT_EQ(trace_status_of("l2.trace.gpu_idle", t), Status::fail);
  t.summary.gpu_idle_share.reset();
  EXPECT_EQ(trace_status_of("l2.trace.gpu_idle", t), Status::skip);
}

TEST(TraceRules, CommOverlapBelowHalfWarns) {
  auto t = rank_with();
  EXPECT_EQ(trace_status_of("l2.trace.comm_overlap", t), Status::pass);
  t.summary.comm_overlap = 0.2;
  EXPECT_EQ(trace_status_of("l2.trace.comm_overlap", t), Status::warn);
  t.summary.comm_overlap.reset();
  EXPECT_EQ(trace_status_of("l2.trace.comm_overlap", t), Status::skip);
}

TEST(TraceRules, SyncCallsInTheStepsWarn) {
  auto t = rank_with();
  EXPECT_EQ(trace_status_of("l2.trace.sync_stalls", t), Status::pass);
  t.summary.sync_calls = 12;
  t.summary.sync_by_name = {{"cudaStreamSynchronize", 12, 603}};
  EXPECT_EQ(trace_status_of("l2.trace.sync_stalls", t), Status::warn);
  t.accelerator = "none";
  EXPECT_EQ(trace_status_of("l2.trace.sync_stalls", t), Status::skip);
}

TEST(TraceRules, LaunchBoundStepsWarn) {
  auto t = rank_with();
  EXPECT_EQ(trace_status_of("l2.trace.launch_bound", t), Status::pass);
  t.summary.launch_bound_steps = 3;
  t.summary.kernel_launches = 4000;
  t.summary.short_kernels = 3000;
  EXPECT_EQ(trace_status_of("l2.trace.launch_bound", t), Status::warn);
}

TEST(TraceRules, ReservedFarAboveAllocatedWarns) {
  auto t = rank_with();
  EXPECT_EQ(trace_status_of("l2.vram.fragmentation", t), Status::skip);
  TraceMemory m;
  m.device = "cuda:0";
  m.peak_allocated_bytes = 30ull << 30;
  m.peak_reserved_bytes = 32ull << 30;
  m.gap_bytes = 2ll << 30;
  t.summary.memory = {m};
  EXPECT_EQ(trace_status_of("l2.vram.fragmentation", t), Status::pass);  // ratio 1.07
  t.summary.memory[0].peak_allocated_bytes = 8ull << 30;
  t.summary.memory[0].gap_bytes = 24ll << 30;
  EXPECT_EQ(trace_status_of("l2.vram.fragmentation", t), Status::warn);
}

TEST(TraceRules, StragglerMoreThanTenPercentSlowerWarns) {
  TraceFacts tf;
  tf.collected = true;
  tf.traces = {rank_with()};
  tf.cross_rank_missing = "one trace (one rank)";
  auto out = judge_trace("l2.trace.straggler", tf);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, Status::skip);
  tf.cross_rank = TraceCrossRank{4, 100000, 99000, 105000, 0.06, "rank 2", 0.05};
  EXPECT_EQ(judge_trace("l2.trace.straggler", tf)[0].status, Status::pass);
  tf.cross_rank->slowest_excess = 0.25;
  out = judge_trace("l2.trace.straggler", tf);
  EXPECT_EQ(out[0].status, Status::warn);
  EXPECT_EQ(out[0].subject, "rank 2");
}

TEST(TraceRules, StepTimeIsAnInfoAndSaysWhenThereAreNoSteps) {
  auto t = rank_with();
  EXPECT_EQ(trace_status_of("l2.trace.step_time", t), Status::info);
  t.notes = {"no_profiler_steps"};
  TraceFacts tf;
  tf.collected = true;
  tf.traces = {t};
  auto out = judge_trace("l2.trace.step_time", tf);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].variant, "no_steps");
  EXPECT_NE(finding_message(out[0], Lang::zh).find("ProfilerStep"), std::string::npos);
}

}  // namespace
}  // namespace plumb
