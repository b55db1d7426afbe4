// `plumb trace` end to end: real traces (corpus copies and traces generated with Debian's
// PyTorch), output formats, exit codes and one-line errors for bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "../test_util.h"

namespace plumb {
namespace {

using nlohmann::json;

std::string traces(const std::string& rel) { return test::fixture("traces/" + rel); }

const json* finding(const json& doc, const std::string& id, const std::string& subject = "") {
  for (const auto& f : doc["findings"]) {
    if (f["id"] == id && (subject.empty() || f["subject"] == subject)) return &f;
  }
  return nullptr;
}

TEST(TraceE2E, ResNet50DataLoaderBoundWarnsAndItsTwinDoesNot) {
  auto r = test::run_plumb({"trace", traces("corpus/kineto-resnet50-num-workers-0-dataloader-bound.json.gz"),
                            traces("corpus/kineto-resnet50-num-workers-4.json.gz"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  const auto* slow = finding(doc, "l2.trace.dataloader_share", "kineto-resnet50-num-workers-0-dataloader-bound.json.gz");
  const auto* fast = finding(doc, "l2.trace.dataloader_share", "kineto-resnet50-num-workers-4.json.gz");
  ASSERT_TRUE(slow && fast);
  EXPECT_EQ((*slow)["status"], "warn");
  EXPECT_EQ((*fast)["status"], "pass");
  // The JSON contract of `plumb trace`: per trace rank, steps[] and summary shares.
  const auto& t = doc["facts"]["trace"]["traces"][0];
  EXPECT_TRUE(t.contains("rank"));
  ASSERT_EQ(t["steps"].size(), 6u);
  for (const char* k : {"name", "duration_us", "dataloader_us", "h2d_us", "gpu_busy_us", "gpu_idle_us"}) {
    EXPECT_TRUE(t["steps"][0].contains(k)) << k;
  }
  for (const char* k : {"dataloader_share", "copy_share", "gpu_idle_share", "comm_overlap"}) {
    EXPECT_TRUE(t["summary"].contains(k)) << k;
  }
  EXPECT_NEAR(t["summary"]["dataloader_share"].get<double>(), 0.3013, 0.001);
  // Two runs profiled a minute apart are two jobs, never two ranks of one: no straggler verdict.
  EXPECT_EQ(doc["facts"]["trace"]["jobs"], 2);
  EXPECT_TRUE(doc["facts"]["trace"]["cross_rank"].is_null());
  const auto* s = finding(doc, "l2.trace.straggler");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ((*s)["status"], "skip");
}

TEST(TraceE2E, RanksOfOneJobAreComparedAndAnUnrelatedTraceIsSetApart) {
  std::string dir = ::testing::TempDir() + "/plumb_trace_jobs";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // Two ranks of one job (the same profiling window; ranks from the file names) and a trace of
  // another job that also calls itself rank 1.
  std::filesystem::copy_file(traces("corpus/kineto-resnet50-num-workers-4.json.gz"), dir + "/job-rank0.json.gz");
  std::filesystem::copy_file(traces("corpus/kineto-resnet50-num-workers-4.json.gz"), dir + "/job-rank1.json.gz");
  std::filesystem::copy_file(traces("corpus/hta-v100-sxm2-16gb-train-6steps.json.gz"), dir + "/other.json.gz");
  auto r = test::run_plumb({"trace", dir, "--format", "json"});
  ASSERT_NE(r.exit_code, 2) << r.err;
  json doc = json::parse(r.out);
  const auto& tf = doc["facts"]["trace"];
  EXPECT_EQ(tf["jobs"], 2);
  ASSERT_TRUE(tf["cross_rank"].is_object()) << tf["cross_rank_missing"];
  EXPECT_EQ(tf["cross_rank"]["ranks"], 2);
  const auto* s = finding(doc, "l2.trace.straggler");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ((*s)["status"], "pass");  // identical ranks: no straggler
  std::filesystem::remove_all(dir);
}

TEST(TraceE2E, GeneratedCpuTracesFolderFailsTheSlowLoader) {
  auto r = test::run_plumb({"trace", traces("generated"), "--format", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // num_workers=0 spends > 40 % of each step waiting
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["facts"]["trace"]["traces"].size(), 2u);
  EXPECT_EQ((*finding(doc, "l2.trace.dataloader_share", "cpu-mlp-num-workers-0.json"))["status"], "fail");
  EXPECT_EQ((*finding(doc, "l2.trace.dataloader_share", "cpu-mlp-num-workers-2.json"))["status"], "pass");
  EXPECT_EQ((*finding(doc, "l2.trace.gpu_idle", "cpu-mlp-num-workers-0.json"))["status"], "skip");
}

TEST(TraceE2E, TerminalAndMarkdownShowTheStepTable) {
  auto term = test::run_plumb({"trace", traces("generated/cpu-mlp-num-workers-0.json")});
  EXPECT_EQ(term.exit_code, 1);
  EXPECT_NE(term.out.find("ProfilerStep#4"), std::string::npos) << term.out;
  EXPECT_NE(term.out.find("data wait"), std::string::npos);
  EXPECT_NE(term.out.find("l2.trace.dataloader_share"), std::string::npos);
  auto md = test::run_plumb({"trace", traces("generated/cpu-mlp-num-workers-0.json"), "--format", "md", "--steps", "4-6"});
  EXPECT_NE(md.out.find("| step | time | data wait"), std::string::npos) << md.out;
  EXPECT_EQ(md.out.find("ProfilerStep#3"), std::string::npos);
  auto zh = test::run_plumb({"trace", traces("generated/cpu-mlp-num-workers-0.json"), "--lang", "zh"});
  EXPECT_NE(zh.out.find("DataLoader 耗时占比"), std::string::npos);
}

// --timings: the table of where each file's time went on stderr, in the language of the report; the
// report itself unchanged on stdout.
TEST(TraceE2E, TimingsTableOnStderr) {
  const std::string file = traces("generated/cpu-mlp-num-workers-0.json");
  auto plain = test::run_plumb({"trace", file, "--format", "md"});
  auto timed = test::run_plumb({"trace", file, "--format", "md", "--timings", "--threads", "1"});
  EXPECT_EQ(timed.exit_code, plain.exit_code) << timed.err;
  EXPECT_EQ(timed.out.find("Trace timings"), std::string::npos) << "the table goes to stderr";
  EXPECT_NE(timed.err.find("Trace timings (wall clock from the start of the command)"), std::string::npos) << timed.err;
  for (const char* step : {"  read  ", "  analysis  ", "from the start of the command to here"}) {
    EXPECT_NE(timed.err.find(step), std::string::npos) << step << "\n" << timed.err;
  }
  EXPECT_NE(timed.err.find(file), std::string::npos);
  EXPECT_EQ(plain.err.find("Trace timings"), std::string::npos) << "only when asked";
  auto zh = test::run_plumb({"trace", file, "--timings", "--lang", "zh"});
  EXPECT_NE(zh.err.find("追踪文件耗时"), std::string::npos) << zh.err;
  EXPECT_NE(zh.err.find("分析"), std::string::npos) << zh.err;
  // A gzip file says which library inflated it: ISA-L, which this build links.
  auto gz = test::run_plumb({"trace", traces("corpus/hta-a100-triton-kernels.json.gz"), "--timings", "--threads", "1"});
  EXPECT_NE(gz.err.find("  read, inflated by ISA-L  "), std::string::npos) << gz.err;
  EXPECT_NE(timed.err.find("  read  "), std::string::npos) << "a plain file is read, not inflated";
}

// A report about a file: the path in full once (the trace's own block), its last component in
// evidence sources, no host lines that were never collected, no layer section with nothing in it.
TEST(TraceE2E, FileReportsShowThePathOnceAndNoEmptySections) {
  const std::string file = traces("corpus/hta-a100-cuda-event-sync-small.json.gz");
  for (const std::string fmt : {"term", "md", "html"}) {
    auto r = test::run_plumb({"trace", file, "--format", fmt});
    ASSERT_LE(r.exit_code, 1) << fmt << ": " << r.err;
    EXPECT_NE(r.out.find("(hta-a100-cuda-event-sync-small.json.gz: union of kernel"), std::string::npos) << fmt << r.out;
    EXPECT_EQ(r.out.find("(" + file), std::string::npos) << fmt << ": a full path in an evidence source";
    EXPECT_EQ(r.out.find("not collected"), std::string::npos) << fmt;
    EXPECT_EQ(r.out.find("Baseline comparison"), std::string::npos) << fmt << ": an empty section";
    EXPECT_EQ(r.out.find("Environment"), std::string::npos) << fmt << ": an empty section";
    EXPECT_NE(r.out.find("plumb trace " + file), std::string::npos) << fmt << ": the verify command keeps the path";
  }
}

TEST(TraceE2E, RankFilterAndHtaNumbers) {
  auto r = test::run_plumb({"trace", traces("corpus/hta-sampled-rank0-no-deviceprops.json.gz"),
                            traces("corpus/hta-cpu-only-rank34.json.gz"), "--rank", "34", "-f", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["facts"]["trace"]["traces"].size(), 1u);
  EXPECT_EQ(doc["facts"]["trace"]["traces"][0]["rank"], 34);
  auto none = test::run_plumb({"trace", traces("corpus/hta-cpu-only-rank34.json.gz"), "--rank", "3"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("--rank 3"), std::string::npos);
}

TEST(TraceE2E, BadInputExitsTwoWithOneLine) {
  std::string dir = ::testing::TempDir() + "/plumb_trace_bad";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/garbage.json") << "not json at all";
  std::ofstream(dir + "/cut.json") << R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}, {"ph": "X", "na)";
  {
    std::ifstream in(traces("corpus/hta-a100-triton-kernels.json.gz"), std::ios::binary);
    std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(dir + "/cut.json.gz", std::ios::binary) << gz.substr(0, gz.size() / 2);
  }
  for (const std::string& f : {dir + "/garbage.json", dir + "/cut.json", dir + "/cut.json.gz", dir + "/missing.json"}) {
    auto r = test::run_plumb({"trace", f});
    EXPECT_EQ(r.exit_code, 2) << f;
    EXPECT_NE(r.err.find(f), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "");
  }
  auto steps = test::run_plumb({"trace", traces("generated/cpu-mlp-num-workers-0.json"), "--steps", "9-2"});
  EXPECT_EQ(steps.exit_code, 2);
}

TEST(TraceE2E, EveryCorpusTraceGetsABreakdown) {
  auto r = test::run_plumb({"trace", traces("corpus"), "-f", "json"});
  ASSERT_NE(r.exit_code, 2) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["facts"]["trace"]["traces"].size(), 15u);
  for (const auto& t : doc["facts"]["trace"]["traces"]) {
    EXPECT_FALSE(t["steps"].empty()) << t["file"];
    EXPECT_GT(t["summary"]["step_time_total_us"].get<double>(), 0) << t["file"];
  }
}

TEST(TraceE2E, RegeneratedTraceMatchesTheSlowLoaderDesign) {
  // Needs Debian's python3-torch (/usr/bin/python3); the CI image may not have it.
  RunOptions o;
  o.timeout = std::chrono::milliseconds(120000);
  auto probe = run_program({"/usr/bin/python3", "-c", "import torch"}, o);
  if (!probe || probe->exit_code != 0) GTEST_SKIP() << "torch is not installed for /usr/bin/python3";
  std::string dir = ::testing::TempDir() + "/plumb_trace_gen";
  auto gen = run_program({"/usr/bin/python3", traces("gen/make_traces.py"), "--out", dir, "--workers", "0", "--steps", "3"}, o);
  ASSERT_TRUE(gen && gen->exit_code == 0) << (gen ? gen->err : gen.error().describe());
  auto r = test::run_plumb({"trace", dir + "/cpu-mlp-num-workers-0.json", "-f", "json"});
  json doc = json::parse(r.out);
  double share = doc["facts"]["trace"]["traces"][0]["summary"]["dataloader_share"].get<double>();
  EXPECT_GT(share, 0.30);  // designed: 16 ms of loading against 16 ms of step work
}

// A trace of a few sub-µs events: HTA's rounding to whole µs leaves a negative GPU span, so the
// breakdown is n/a with the reason, never a negative or over-100 % share.
TEST(TraceE2E, DegenerateHtaBreakdownIsNotApplicable) {
  auto r = test::run_plumb({"trace", traces("corpus/kineto-docs-8x-h100-cuda-sync-small.json")});
  EXPECT_NE(r.exit_code, 2) << r.err;
  EXPECT_NE(r.out.find("HTA temporal breakdown (whole trace, HTA's definitions): n/a ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("too short to break down"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("idle -"), std::string::npos) << r.out;
  auto js = test::run_plumb({"trace", traces("corpus/kineto-docs-8x-h100-cuda-sync-small.json"), "-f", "json"});
  EXPECT_NE(js.out.find("\"idle_pctg\": 0"), std::string::npos) << js.out;
  EXPECT_EQ(js.out.find("\"idle_pctg\": -"), std::string::npos) << js.out;
  // A 0.13 µs window is too short to judge a GPU-idle share: not checked, and no failure.
  EXPECT_EQ(js.exit_code, 0) << js.out;
  json doc = json::parse(js.out);
  const auto* idle = finding(doc, "l2.trace.gpu_idle");
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ((*idle)["status"], "skip");
  EXPECT_NE((*idle)["message"].get<std::string>().find("too short to judge"), std::string::npos) << (*idle)["message"];
}

}  // namespace
}  // namespace plumb
