// The streaming reader on real traces (HTA and kineto test data, origins in tests/fixtures/SOURCES.md)
// and on small hand-written ones: both formats, gzip, chunk boundaries, and every kind of bad input.
#include <gtest/gtest.h>

#include "core/json.h"
#include "analyze/trace/reader.h"
#include "../../../test_util.h"
#include "deflate_util.h"

namespace plumb::trace {
namespace {

std::string corpus(const std::string& name) { return test::fixture("traces/corpus/" + name); }

TraceRank must_read(Result<TraceRank> r) {
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r.value()) : TraceRank{};
}

std::string gzip(const std::string& s) { return test::deflate_with(s, 6, 15 + 16); }

// A small Kineto trace: two steps of 1000 µs; step 1 waits 400 µs for data, step 2 100 µs.
const char* kSmall = R"J({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100"}],
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000},
  {"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 1000, "dur": 400},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm \"quoted\" {brace} [x]", "pid": 1, "tid": 1, "ts": 1500, "dur": 100},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1500, "dur": 10, "args": {"correlation": 7}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1520, "dur": 300, "args": {"stream": 7, "correlation": 7, "device": 0}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 1450, "dur": 50, "args": {"stream": 7, "correlation": 8, "bytes": 5000000}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 2000, "dur": 1000},
  {"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 2000, "dur": 100},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 2100, "dur": 800, "args": {"stream": 7, "correlation": 9}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1600, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 4096, "Total Allocated": 2147483648, "Total Reserved": 6442450944}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1700, "args": {"Device Type": 1, "Device Id": 0, "Bytes": -4096, "Total Allocated": 1073741824, "Total Reserved": 6442450944}},
  {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "python"}}
 ],
 "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8}})J";

TEST(TraceReader, SmallKinetoTraceStepByStep) {
  auto t = must_read(analyze_trace_bytes(kSmall, "small.json"));
  EXPECT_EQ(t.format, "kineto");
  EXPECT_EQ(t.rank, 3);
  EXPECT_EQ(t.rank_source, "distributedInfo");
  EXPECT_EQ(t.world_size, 8);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.accelerator, "cuda");
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_EQ(t.steps[0].number, 1);
  EXPECT_DOUBLE_EQ(t.steps[0].duration_us, 1000);
  EXPECT_DOUBLE_EQ(t.steps[0].dataloader_us, 400);
  EXPECT_DOUBLE_EQ(*t.steps[0].h2d_us, 50);
  EXPECT_DOUBLE_EQ(*t.steps[0].pageable_h2d_us, 50);
  EXPECT_DOUBLE_EQ(*t.steps[0].gpu_busy_us, 350);
  EXPECT_DOUBLE_EQ(*t.steps[0].gpu_idle_us, 650);
  EXPECT_EQ(t.steps[0].kernel_launches, 1);
  EXPECT_DOUBLE_EQ(*t.steps[1].gpu_busy_us, 800);
  const auto& s = t.summary;
  EXPECT_EQ(s.complete_steps, 2);
  EXPECT_DOUBLE_EQ(*s.dataloader_share, 0.25);  // (400 + 100) / 2000: totals, not a mean of ratios
  EXPECT_DOUBLE_EQ(*s.gpu_idle_share, (650.0 + 200.0) / 2000.0);
  EXPECT_EQ(s.pageable_h2d_count, 1);
  EXPECT_EQ(s.h2d_bytes, 5000000u);
  EXPECT_DOUBLE_EQ(*s.h2d_gbps, 100.0);  // 5 MB in 50 µs
  ASSERT_EQ(s.memory.size(), 1u);
  EXPECT_EQ(s.memory[0].device, "cuda:0");
  EXPECT_EQ(s.memory[0].peak_allocated_bytes, 2147483648u);
  EXPECT_EQ(s.memory[0].peak_reserved_bytes, 6442450944u);
  EXPECT_EQ(s.memory[0].gap_bytes, 4294967296);
  ASSERT_FALSE(s.top_ops.empty());
  EXPECT_EQ(s.top_ops[0].name, "aten::mm \"quoted\" {brace} [x]");
}

TEST(TraceReader, TinyChunksGiveTheSameAnswer) {
  auto whole = must_read(analyze_trace_bytes(kSmall, "small.json"));
  for (std::size_t chunk : {1, 3, 7, 64, 65}) {
    TraceOptions o;
    o.limits.chunk = chunk;
    o.limits.batch = 1;
    auto t = must_read(analyze_trace_bytes(kSmall, "small.json", o));
    t.parse_ms = whole.parse_ms;
    EXPECT_EQ(t, whole) << "chunk " << chunk;
  }
}

TEST(TraceReader, GzipAndPlainAreTheSame) {
  auto plain = must_read(analyze_trace_bytes(kSmall, "small.json"));
  auto gz = must_read(analyze_trace_bytes(gzip(kSmall), "small.json"));
  gz.parse_ms = plain.parse_ms;
  EXPECT_EQ(gz, plain);
}

TEST(TraceReader, UnsortedEventsGiveTheSameAnswer) {
  std::string text = kSmall;
  // Swap the first two steps' blocks by reversing event order through a rebuilt array.
  auto j = nlohmann::json::parse(text);
  std::reverse(j["traceEvents"].begin(), j["traceEvents"].end());
  auto a = must_read(analyze_trace_bytes(kSmall, "small.json"));
  auto b = must_read(analyze_trace_bytes(j.dump(), "small.json"));
  b.parse_ms = a.parse_ms;
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.summary, b.summary);
}

TEST(TraceReader, NineteenDigitTimestampsKeepTheirValue) {
  // Kineto 2024 writes absolute µs with 3 decimals (hta-v100-sxm2-32gb-ns-resolution).
  const char* text = R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1712195495502094.565, "dur": 1000.5},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1712195495502100.000, "dur": 500.25, "args": {"stream": 7, "correlation": 1}}]})";
  auto t = must_read(analyze_trace_bytes(text, "ns.json"));
  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_NEAR(*t.steps[0].gpu_busy_us, 500.25, 0.01);
}

TEST(TraceReader, LegacyArrayFromCpuOnlyTorch) {
  auto t = must_read(analyze_trace_file(test::fixture("traces/generated/cpu-mlp-num-workers-0.json")));
  EXPECT_EQ(t.format, "legacy");
  EXPECT_EQ(t.accelerator, "none");
  EXPECT_FALSE(t.summary.gpu_idle_share.has_value());
  EXPECT_TRUE(t.summary.unavailable.count("gpu_idle_share"));
  EXPECT_EQ(t.summary.copy_source, "cpu_aten_copy");
  EXPECT_EQ(t.summary.complete_steps, 6);
  // The slow dataset (16 ms per batch, loaded in the main process) dominates each step.
  EXPECT_GT(*t.summary.dataloader_share, 0.40);
  auto fast = must_read(analyze_trace_file(test::fixture("traces/generated/cpu-mlp-num-workers-2.json")));
  EXPECT_LT(*fast.summary.dataloader_share, 0.30);
}

TEST(TraceReader, ResNet50DataLoaderBoundVersusFourWorkers) {
  // pytorch/kineto tb_plugin samples: 6 steps, num_workers=0 vs 4 (checked with bench/trace_reference.py).
  auto slow = must_read(analyze_trace_file(corpus("kineto-resnet50-num-workers-0-dataloader-bound.json.gz")));
  EXPECT_EQ(slow.summary.complete_steps, 6);
  EXPECT_NEAR(*slow.summary.dataloader_share, 0.30129, 1e-4);
  EXPECT_EQ(slow.summary.pageable_h2d_count, 12);
  auto fast = must_read(analyze_trace_file(corpus("kineto-resnet50-num-workers-4.json.gz")));
  EXPECT_NEAR(*fast.summary.dataloader_share, 0.01328, 1e-4);
}

TEST(TraceReader, HtaTemporalBreakdownMatchesTheReference) {
  // Values from bench/trace_reference.py, an independent re-implementation of HTA's definitions.
  auto t = must_read(analyze_trace_file(corpus("hta-v100-sxm2-16gb-train-6steps.json.gz")));
  ASSERT_TRUE(t.summary.hta.has_value());
  EXPECT_DOUBLE_EQ(t.summary.hta->idle_pctg, 7.47);
  EXPECT_DOUBLE_EQ(t.summary.hta->compute_pctg, 68.31);
  EXPECT_EQ(t.rank, 1);
  auto n = must_read(analyze_trace_file(corpus("hta-sampled-rank0-no-deviceprops.json.gz")));
  ASSERT_TRUE(n.summary.hta && n.summary.hta->comm_comp_overlap_pctg);
  EXPECT_DOUBLE_EQ(n.summary.hta->idle_pctg, 53.56);
  EXPECT_GT(*n.summary.comm_us, 0);
  EXPECT_TRUE(n.devices.empty());
}

TEST(TraceReader, OddTracesSayWhatTheyLack) {
  auto range = must_read(analyze_trace_file(corpus("hta-a100-cupti-profiler-counters.json.gz")));
  EXPECT_EQ(range.accelerator, "cupti_range");
  EXPECT_FALSE(range.summary.gpu_idle_share);
  EXPECT_NE(std::find(range.notes.begin(), range.notes.end(), "no_profiler_steps"), range.notes.end());
  ASSERT_EQ(range.steps.size(), 1u);
  EXPECT_EQ(range.steps[0].name, "whole trace");
  auto amd = must_read(analyze_trace_file(corpus("hta-amd-mi250-rocm62.json.gz")));
  EXPECT_EQ(amd.accelerator, "rocm");
  EXPECT_NE(std::find(amd.notes.begin(), amd.notes.end(), "last_step_partial"), amd.notes.end());
  EXPECT_EQ(amd.summary.complete_steps, 1);
  auto cpu = must_read(analyze_trace_file(corpus("hta-cpu-only-rank34.json.gz")));
  EXPECT_EQ(cpu.rank, 34);
  EXPECT_EQ(cpu.accelerator, "none");
}

TEST(TraceReader, StepFilterKeepsTheRange) {
  TraceOptions o;
  o.steps = {4, 6};
  auto t = must_read(analyze_trace_file(test::fixture("traces/generated/cpu-mlp-num-workers-2.json"), o));
  ASSERT_EQ(t.steps.size(), 3u);
  EXPECT_EQ(t.steps.front().name, "ProfilerStep#4");
  EXPECT_NE(std::find(t.notes.begin(), t.notes.end(), "steps_filtered"), t.notes.end());
  o.steps = {100, 200};
  auto r = analyze_trace_file(test::fixture("traces/generated/cpu-mlp-num-workers-2.json"), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("ProfilerStep#3"), std::string::npos);
}

struct Bad {
  const char* text;
  const char* expect;  // part of the one-line error
};

TEST(TraceReader, BadInputIsAOneLineErrorWithAnOffset) {
  const Bad cases[] = {
      {"", "empty file"},
      {"hello", "expected a JSON object or array at byte 0"},
      {R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2})", "truncated"},
      {R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}, {"ph": "X", "name": "b", "ts": "x", "dur": 2}]})",
       "\"ts\" is not a number in the event at byte 62"},
      {R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1}]})", "without \"dur\""},
      {R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": -5}]})", "negative duration"},
      {R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1e300, "dur": 5}]})", "out of range"},
      {R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 5,}]})", "invalid JSON"},
      {R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 5}}]})", "unbalanced"},
      {R"({"traceEvents": 5})", "traceEvents is not an array"},
      {R"({"other": [1, 2, 3]})", "no trace events"},
      {R"([1, 2, 3])", "no trace events"},
      {R"({"traceEvents": []} x)", "unexpected data after the end"},
      {R"({"traceEvents": [{"ph": "i", "name": "x", "ts": 1}]})", "no complete"},
  };
  for (const auto& c : cases) {
    auto r = analyze_trace_bytes(c.text, "bad.json");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.error().message.find(c.expect), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
    EXPECT_EQ(r.error().message.rfind("bad.json: ", 0), 0u) << r.error().message;
  }
}

TEST(TraceReader, GzipErrorsNameTheCompressedOffset) {
  std::string gz = gzip(kSmall);
  auto cut = analyze_trace_bytes(gz.substr(0, gz.size() / 2), "cut.json.gz");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("gzip stream truncated at compressed byte"), std::string::npos) << cut.error().message;
  std::string bad = gz;
  for (std::size_t i = 20; i < 60 && i < bad.size(); ++i) bad[i] = static_cast<char>(bad[i] ^ 0x5a);
  auto r = analyze_trace_bytes(bad, "bad.json.gz");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("gzip"), std::string::npos) << r.error().message;
}

TEST(TraceReader, MissingFileAndFolders) {
  auto r = analyze_trace_file("/does/not/exist.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::absent);
  auto files = expand_trace_inputs({test::fixture("traces/generated")});
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(files->size(), 2u);
  EXPECT_FALSE(expand_trace_inputs({test::fixture("hosts-none")}).ok());
}

TEST(TraceReader, RankFromFileNameAndCrossRankSpread) {
  EXPECT_EQ(rank_from_file_name("/x/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"), 0);
  EXPECT_EQ(rank_from_file_name("RANK_12.json"), 12);
  EXPECT_EQ(rank_from_file_name("worker0.pt.trace.json"), std::nullopt);
  std::vector<TraceRank> ranks(3);
  double med[] = {100, 104, 130};
  for (int i = 0; i < 3; ++i) {
    ranks[i].rank = i;
    ranks[i].summary.step_time_median_us = med[i];
  }
  std::string why;
  auto x = compare_ranks(ranks, why);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->slowest, "rank 2");
  EXPECT_NEAR(x->slowest_excess, 130.0 / 104.0 - 1, 1e-9);
  EXPECT_NEAR(x->spread, 30.0 / 104.0, 1e-9);
  EXPECT_FALSE(compare_ranks({ranks[0]}, why));
  EXPECT_NE(why.find("one trace"), std::string::npos);
}

TraceRank job_rank(std::int64_t rank, double start_s, double median_us, const std::string& file) {
  TraceRank t;
  t.file = file;
  t.rank = rank;
  t.rank_source = "distributedInfo";
  t.world_size = 4;
  t.devices = {"NVIDIA A100-SXM4-80GB"};
  t.start_unix_s = start_s;
  t.window_s = 2;
  t.summary.step_time_median_us = median_us;
  return t;
}

TEST(TraceJobs, UnrelatedTracesAreNeverRanksOfOneJob) {
  // Three traces of unrelated jobs, every one "rank 0": no straggler among them.
  TraceFacts f;
  f.traces = {job_rank(0, 1000, 100, "a.json"), job_rank(0, 1000, 8600, "b.json"), job_rank(0, 1000, 120, "c.json")};
  group_and_compare(f);
  EXPECT_EQ(f.jobs, 3);
  EXPECT_FALSE(f.cross_rank);
  EXPECT_NE(f.cross_rank_missing.find("3 different jobs"), std::string::npos) << f.cross_rank_missing;
  EXPECT_NE(f.cross_rank_missing.find("both claim rank 0"), std::string::npos) << f.cross_rank_missing;
}

TEST(TraceJobs, EachSignOfAnotherJobSplits) {
  auto a = job_rank(0, 1000, 100, "a.json");
  auto b = job_rank(1, 1000.5, 100, "b.json");
  EXPECT_EQ(different_jobs(a, b), "");
  auto other_world = b;
  other_world.world_size = 8;
  EXPECT_NE(different_jobs(a, other_world).find("world sizes 4 and 8"), std::string::npos);
  auto other_gpu = b;
  other_gpu.devices = {"Tesla V100-SXM2-16GB"};
  EXPECT_NE(different_jobs(a, other_gpu).find("ran on"), std::string::npos);
  auto later = b;
  later.start_unix_s = 1000 + 2 + kJobClockSlackS + 1;
  EXPECT_NE(different_jobs(a, later).find("apart"), std::string::npos);
  auto within_slack = b;
  within_slack.start_unix_s = 1000 + 2 + kJobClockSlackS - 1;
  EXPECT_EQ(different_jobs(a, within_slack), "");
  auto steps_a = a, steps_b = b;
  steps_a.steps.resize(2);
  steps_a.steps[0].number = 5;
  steps_a.steps[1].number = 9;
  steps_b.steps.resize(1);
  steps_b.steps[0].number = 120;
  EXPECT_NE(different_jobs(steps_a, steps_b).find("ProfilerStep#5..#9"), std::string::npos);
  steps_b.steps[0].number = 7;
  EXPECT_EQ(different_jobs(steps_a, steps_b), "");
}

TEST(TraceJobs, TheLargestJobIsComparedAndTheRestSetApart) {
  TraceFacts f;
  f.traces = {job_rank(0, 1000, 100, "r0.json"), job_rank(1, 1000, 104, "r1.json"), job_rank(2, 1000, 130, "r2.json"),
              job_rank(3, 9000, 5000, "old-r3.json")};
  group_and_compare(f);
  EXPECT_EQ(f.jobs, 2);
  ASSERT_TRUE(f.cross_rank);
  EXPECT_EQ(f.cross_rank->ranks, 3);
  EXPECT_EQ(f.cross_rank->slowest, "rank 2");
  EXPECT_EQ(f.cross_rank->job, 1);
  EXPECT_EQ(f.traces[3].job, 2);
  ASSERT_EQ(f.jobs_evidence.size(), 1u);
  EXPECT_NE(f.jobs_evidence[0].find("old-r3.json"), std::string::npos);
}

}  // namespace
}  // namespace plumb::trace
