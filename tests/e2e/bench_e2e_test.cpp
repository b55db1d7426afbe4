// End-to-end: the plumb binary runs each CPU benchmark briefly, records runs, sets and compares
// baselines, moves them between databases, and fails cleanly (exit 2, one line) on bad input.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "core/json.h"
#include "../test_util.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;

class BenchE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/plumb-bench-e2e-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = dir_ + "/history.db";
  }
  void TearDown() override { fs::remove_all(dir_); }
  RunOutput plumb(std::vector<std::string> args) {
    args.push_back("--db");
    args.push_back(db_);
    return test::run_plumb(args);
  }
  static int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }
  // `plumb bench step` with Debian's python3-torch (/usr/bin/python3) and these extra arguments:
  // the JSON report's one result.
  json debian_step_result(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"bench", "step", "--python", "/usr/bin/python3", "--warmup", "1", "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = plumb(args);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    json j = json::parse(r.out, nullptr, false);
    if (!j.is_object()) return json::object();
    return j["facts"]["bench"]["results"][0];
  }
  std::string dir_, db_;
};

const std::vector<std::string> kTinyMembw = {"bench", "membw", "--size", "1M", "--samples", "2", "--threads", "2"};

std::vector<std::string> tiny_membw_json() {
  auto args = kTinyMembw;
  args.insert(args.end(), {"--format", "json"});
  return args;
}

TEST_F(BenchE2e, MembwRunsRecordsAndPrintsJson) {
  auto r = plumb(tiny_membw_json());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  const auto& res = j["facts"]["bench"]["results"][0];
  EXPECT_EQ(res["bench"], "membw");
  EXPECT_GT(res["metrics"][0]["median"].get<double>(), 0);
  EXPECT_NE(r.err.find("recorded as run 1"), std::string::npos) << r.err;
  auto h = plumb({"history"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("bench membw"), std::string::npos);
}

// A baseline measured with other settings is not like for like: a note naming the settings, no
// verdict, however strict the thresholds (a failure would blame the infrastructure for the size).
TEST_F(BenchE2e, ABaselineWithOtherSettingsIsNotComparedNotFailed) {
  ASSERT_EQ(plumb(kTinyMembw).exit_code, 0);
  ASSERT_EQ(plumb({"baseline", "set", "1"}).exit_code, 0);
  ASSERT_EQ(plumb({"bench", "membw", "--size", "2M", "--samples", "2", "--threads", "2"}).exit_code, 0);
  auto cmp = plumb({"compare", "--warn-pct", "0", "--fail-pct", "0", "--format", "json"});
  EXPECT_EQ(cmp.exit_code, 0) << cmp.out << cmp.err;
  json j = json::parse(cmp.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << cmp.out;
  int notes = 0;
  for (const auto& f : j["findings"]) {
    if (f["id"] != "l2.baseline.regression") continue;
    EXPECT_EQ(f["status"], "info") << f.dump();
    EXPECT_EQ(f["variant"], "not_comparable") << f.dump();
    EXPECT_NE(f["message"].get<std::string>().find("measured with other settings"), std::string::npos) << f.dump();
    ++notes;
  }
  EXPECT_EQ(notes, 1) << "one note for the benchmark, not one per metric";
}

TEST_F(BenchE2e, BaselineRoundTripAcrossDatabases) {
  ASSERT_EQ(plumb(kTinyMembw).exit_code, 0);
  ASSERT_EQ(plumb(kTinyMembw).exit_code, 0);
  auto set = plumb({"baseline", "set", "1"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_NE(set.out.find("baseline is now run 1"), std::string::npos);
  auto show = plumb({"baseline", "show"});
  EXPECT_NE(show.out.find("membw.copy.1t"), std::string::npos);
  // Generous thresholds: timing noise must not decide this test.
  auto cmp = plumb({"compare", "--warn-pct", "10000", "--fail-pct", "10000"});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.out << cmp.err;
  EXPECT_NE(cmp.out.find("membw.copy.1t"), std::string::npos);
  EXPECT_NE(cmp.out.find("run 2"), std::string::npos);
  auto strict = plumb({"compare", "--warn-pct", "0", "--fail-pct", "0", "--format", "json"});
  json sj = json::parse(strict.out, nullptr, false);
  ASSERT_TRUE(sj.is_object()) << strict.out;
  // The documented report: the baseline's metrics in the facts, one regression verdict per metric.
  EXPECT_EQ(sj["facts"]["bench"]["baseline"]["value"]["metrics"].size(), 4u);
  EXPECT_TRUE(std::any_of(sj["findings"].begin(), sj["findings"].end(),
                          [](const json& f) { return f["id"] == "l2.baseline.regression"; }));
  std::string file = dir_ + "/baseline.json";
  auto ex = plumb({"baseline", "export", file});
  ASSERT_EQ(ex.exit_code, 0) << ex.err;
  std::string other = dir_ + "/fresh.db";
  auto im = test::run_plumb({"baseline", "import", file, "--db", other});
  ASSERT_EQ(im.exit_code, 0) << im.err;
  EXPECT_NE(im.out.find("it is now the baseline"), std::string::npos);
  auto args = kTinyMembw;
  args.insert(args.end(), {"--db", other});
  // Judged against the imported baseline with default thresholds: timing may make it fail (1).
  auto again = test::run_plumb(args);
  ASSERT_TRUE(again.exit_code == 0 || again.exit_code == 1) << again.err;
  auto cmp2 = test::run_plumb({"compare", "--db", other, "--warn-pct", "10000", "--fail-pct", "10000"});
  EXPECT_EQ(cmp2.exit_code, 0) << cmp2.err;
  EXPECT_NE(cmp2.out.find(file), std::string::npos);  // the imported baseline names its file
  // --baseline FILE works without a recorded baseline too.
  auto cmp3 = plumb({"compare", "--baseline", file, "--warn-pct", "10000", "--fail-pct", "10000"});
  EXPECT_EQ(cmp3.exit_code, 0) << cmp3.err;
}

TEST_F(BenchE2e, CompareFailsWhenAMetricRegressedBeyondTheThreshold) {
  ASSERT_EQ(plumb(kTinyMembw).exit_code, 0);
  // A doctored baseline a thousand times faster than any machine: the current run must fail.
  std::string file = dir_ + "/fast.json";
  std::ofstream(file) << R"({"plumb_baseline": 1, "run": {"hostname": "fast", "started_at": "2026-01-01T00:00:00Z"},
    "environment": {"kernel": "0.0-fast"},
    "metrics": [{"name": "membw.copy.1t", "unit": "GB/s", "median": 1e6, "higher_is_better": true}]})";
  auto r = plumb({"compare", "--baseline", file});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // Either wording: "the infrastructure is the suspect, look here", or on a noisy host "rerun
  // before blaming the infrastructure; then look here".
  EXPECT_NE(r.out.find("look here"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0.0-fast"), std::string::npos);  // environment difference listed
}

TEST_F(BenchE2e, EarlierRunsWithTheSameSettingsAreReadBackAndJudged) {
  for (int i = 0; i < 3; ++i) ASSERT_EQ(plumb(kTinyMembw).exit_code, 0);
  // Another size is another measurement: not among the earlier runs.
  ASSERT_EQ(plumb({"bench", "membw", "--size", "2M", "--samples", "2", "--threads", "2"}).exit_code, 0);
  auto r = plumb(tiny_membw_json());
  ASSERT_LE(r.exit_code, 1) << r.err;
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  const auto& earlier = j["facts"]["bench"]["earlier"]["value"];
  ASSERT_TRUE(earlier.is_array()) << j["facts"]["bench"]["earlier"].dump();
  ASSERT_FALSE(earlier.empty());
  EXPECT_EQ(earlier[0]["run_ids"], json::parse("[1, 2, 3]"));
  EXPECT_EQ(earlier[0]["medians"].size(), 3u);
  bool shown = false;
  for (const auto& f : j["findings"]) {
    if (f["id"] != "l2.bench.noise") continue;
    for (const auto& e : f["evidence"]) shown |= e["what"].get<std::string>().find("medians, earlier runs then this one") != std::string::npos;
    EXPECT_NE(f["threshold"].get<std::string>().find("run-to-run spread <= 10 %"), std::string::npos);
  }
  EXPECT_TRUE(shown) << r.out;
  // compare RUN reads only the runs before it: run 3 has two.
  auto c = plumb({"compare", "3", "--baseline", "1", "--format", "json"});
  json cj = json::parse(c.out, nullptr, false);
  ASSERT_FALSE(cj.is_discarded()) << c.out << c.err;
  EXPECT_EQ(cj["facts"]["bench"]["earlier"]["value"][0]["run_ids"], json::parse("[1, 2]"));
  // Without the history nothing is read, and the report says so.
  auto off = test::run_plumb({"bench", "membw", "--size", "1M", "--samples", "2", "--no-history", "--format", "json"});
  json oj = json::parse(off.out, nullptr, false);
  ASSERT_FALSE(oj.is_discarded()) << off.out << off.err;
  EXPECT_FALSE(oj["facts"]["bench"]["earlier"].contains("value"));
  EXPECT_NE(oj["facts"]["bench"]["earlier"]["missing"].get<std::string>().find("--no-history"), std::string::npos);
}

TEST_F(BenchE2e, StorageRefusesToOverwriteAndCleansUp) {
  std::string existing = dir_ + "/data.bin";
  std::ofstream(existing) << "precious";
  auto r = plumb({"bench", "storage", existing, "--size", "1M"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("refusing to overwrite"), std::string::npos);
  std::ifstream in(existing);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "precious");
  std::string target = dir_ + "/target";
  fs::create_directories(target);
  auto ok = plumb({"bench", "storage", target, "--size", "2M", "--duration", "0.02", "--samples", "2", "--warmup", "0"});
  ASSERT_EQ(ok.exit_code == 0 || ok.exit_code == 1, true) << ok.err;
  EXPECT_NE(ok.out.find("storage.rand_read.iops"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(target));
}

TEST_F(BenchE2e, StorageUnwritablePathAndFullDisk) {
  auto bad = plumb({"bench", "storage", "/proc/self/plumb-test-file", "--size", "1M"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
  auto huge = plumb({"bench", "storage", dir_, "--size", "1000T"});
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_NE(huge.err.find("not enough free space"), std::string::npos) << huge.err;
  // A file-size limit stands in for a full disk: writes fail with EFBIG (SIGXFSZ ignored, and
  // both settings are inherited by the child).
  std::string target = dir_ + "/limited";
  fs::create_directories(target);
  struct rlimit old {};
  ::getrlimit(RLIMIT_FSIZE, &old);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = old;
  lim.rlim_cur = 1u << 20;
  ::setrlimit(RLIMIT_FSIZE, &lim);
  auto full = test::run_plumb({"bench", "storage", target, "--size", "8M", "--no-history"});
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(full.exit_code, 2) << full.out;
  EXPECT_NE(full.err.find("file size limit"), std::string::npos) << full.err;
  EXPECT_TRUE(fs::is_empty(target));
}

TEST_F(BenchE2e, InterruptedRunLeavesNoRecord) {
  // Killed at the deadline in the middle of measuring: the database must hold no run.
  std::vector<std::string> argv{PLUMB_BINARY, "bench", "membw", "--size", "64M", "--samples", "100000", "--db", db_};
  RunOptions o;
  o.timeout = std::chrono::milliseconds(1500);
  auto r = run_program(argv, o);
  EXPECT_FALSE(r.ok() && r->exit_code == 0);
  auto h = plumb({"history"});
  EXPECT_EQ(h.exit_code, 0) << h.err;
  EXPECT_NE(h.out.find("no runs recorded"), std::string::npos) << h.out;
}

TEST_F(BenchE2e, CorruptedDatabaseGivesAClearError) {
  std::ofstream(db_) << std::string(4096, 'x');
  auto r = plumb(kTinyMembw);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("not a usable plumb history database"), std::string::npos) << r.err;
  auto h = plumb({"history"});
  EXPECT_EQ(h.exit_code, 2);
}

TEST_F(BenchE2e, DataloadOnTheFixtureDataset) {
  auto r = plumb({"bench", "dataload", test::fixture("bench/dataset"), "--duration", "0.04", "--samples", "1", "--threads", "2"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_NE(r.out.find("num_workers="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rule of thumb"), std::string::npos);
  EXPECT_NE(r.out.find("readers"), std::string::npos);
}

// Debian's python3-torch, where the step benchmark runs on the CPU.
bool debian_torch() {
  RunOptions slow;
  slow.timeout = std::chrono::milliseconds(120000);  // importing torch takes seconds on a busy host
  auto probe = run_program({"/usr/bin/python3", "-c", "import torch"}, slow);
  return probe.ok() && probe->exit_code == 0;
}

TEST_F(BenchE2e, StepWithDebianTorch) {
  if (!debian_torch()) GTEST_SKIP() << "no PyTorch at /usr/bin/python3 (python3-torch)";
  const json res = debian_step_result({"--workers", "0", "--steps", "2"});
  EXPECT_EQ(res["status"], "ok") << res.dump();
  EXPECT_EQ(res["metrics"][0]["name"], "step.best");
  EXPECT_GT(res["metrics"][0]["median"].get<double>(), 0);
  EXPECT_EQ(res["notes"]["device"], "cpu");
}

// With workers, the batches they queued during the first (slow) steps are taken off the queue before
// timing starts, and each sample spans one batch from every worker.
TEST_F(BenchE2e, StepSamplesTheLoadersSteadyState) {
  if (!debian_torch()) GTEST_SKIP() << "no PyTorch at /usr/bin/python3 (python3-torch)";
  const json res = debian_step_result({"--workers", "0,2", "--steps", "3"});
  ASSERT_EQ(res["status"], "ok") << res.dump();
  std::map<std::string, std::pair<double, double>> how;  // metric -> (warm-up steps, steps per sample)
  for (const auto& row : res["rows"]) {
    std::string key = "step.nw" + row["setting"]["num_workers"].get<std::string>() + ".pin0.pf" +
                      (row["setting"]["prefetch_factor"] == "-" ? std::string("0") : row["setting"]["prefetch_factor"].get<std::string>());
    how[key] = {row["values"]["warmup_steps"].get<double>(), row["values"]["steps_per_sample"].get<double>()};
  }
  ASSERT_EQ(how.size(), 3U) << res["rows"].dump();
  EXPECT_EQ(how["step.nw0.pin0.pf0"], std::make_pair(1.0, 1.0));
  EXPECT_EQ(how["step.nw2.pin0.pf2"], std::make_pair(5.0, 2.0));
  EXPECT_EQ(how["step.nw2.pin0.pf4"], std::make_pair(9.0, 2.0));
  std::map<std::string, double> samples;
  for (const auto& m : res["metrics"]) samples[m["name"].get<std::string>()] = m["samples"].get<double>();
  EXPECT_EQ(samples["step.nw0.pin0.pf0"], 3);  // 3 steps, one per sample
  EXPECT_EQ(samples["step.nw2.pin0.pf2"], 2);  // 3 steps rounded up to 4: two samples of two steps
}

TEST_F(BenchE2e, StepWithoutTorchOrPythonIsSkippedWithTheReason) {
  auto r = plumb({"bench", "step", "--python", "/nonexistent/python3"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Python interpreter not found"), std::string::npos) << r.out;
}

TEST_F(BenchE2e, GpuBenchmarksSkipWithTheReasonOnAHostWithoutGpu) {
  if (fs::exists("/dev/nvidia0")) GTEST_SKIP() << "GPU host: exercised by scripts/gpu-check";
  for (const char* b : {"h2d", "gemm", "allreduce"}) {
    auto r = plumb({"bench", b});
    EXPECT_EQ(r.exit_code, 0) << b << r.err;
    EXPECT_NE(r.out.find("skipped:"), std::string::npos) << r.out;
  }
}

TEST_F(BenchE2e, BadInputIsOneLineAndExitTwo) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"bench", "membww"},
                                                                {"bench", "storage"},
                                                                {"bench", "membw", "extra"},
                                                                {"bench", "membw", "--size", "lots"},
                                                                {"bench", "gemm", "--dtype", "fp64"},
                                                                {"bench", "dataload", "/nonexistent-dir"},
                                                                {"baseline", "set", "abc"},
                                                                {"compare", "7"}}) {
    auto r = plumb(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << " " << r.out;
    EXPECT_EQ(lines(r.err), 1) << r.err;
  }
  auto hint = plumb({"bench", "membww"});
  EXPECT_NE(hint.err.find("did you mean 'membw'"), std::string::npos);
}

TEST_F(BenchE2e, CheckQuickFillsTheBaselineSection) {
  auto r = test::run_plumb({"check", "--bench", "quick", "--format", "md", "--db", db_, "--only", "l2.bench,l2.baseline,collect.bench_quick"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  auto sec = r.out.find("Baseline comparison");
  ASSERT_NE(sec, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Host memory bandwidth", sec), std::string::npos) << r.out;
  auto h = test::run_plumb({"history", "--db", db_});
  EXPECT_NE(h.out.find("check"), std::string::npos) << h.out;
  auto none = test::run_plumb({"check", "--format", "md", "--no-history", "--only", "l2.baseline"});
  EXPECT_NE(none.out.find("no benchmark measured anything"), std::string::npos) << none.out;
}

}  // namespace
}  // namespace plumb
