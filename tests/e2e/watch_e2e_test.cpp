// End-to-end: `plumb watch` on a fixture /proc tree with scripted GPUs, recordings replayed by
// `plumb report`, the live view on a pty, Ctrl-C, bad input, and `plumb check --format prom`.
#include <gtest/gtest.h>

#include <cstdio>

#include "../test_util.h"
#include "core/json.h"
#include "watch_spawn.h"
#include "../scratch_root.h"

namespace plumb::test {
namespace {

using namespace std::chrono_literals;

std::string procfs() { return fixture("watch/procfs-host"); }
std::string script(const std::string& name) { return fixture("watch/gpu-scripts/" + name + ".json"); }
std::string watch_tmp(const std::string& name) { return ::testing::TempDir() + "/plumb-watch-" + name; }

std::vector<std::string> watch_args(const std::string& gpu_script) {
  return {"watch", "--duration", "2s", "--interval", "100ms", "--root", procfs(), "--pid", "26231", "--gpu-script", script(gpu_script)};
}

// id + subject -> status from a JSON report.
std::map<std::string, std::string> watch_statuses(const std::string& json_text) {
  std::map<std::string, std::string> out;
  auto doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded()) return out;
  for (const auto& f : doc["findings"]) out[f["id"].get<std::string>() + " " + f["subject"].get<std::string>()] = f["status"];
  return out;
}

TEST(WatchE2E, StarvedGpusGiveL2FindingsAndTheRecordingReplays) {
  std::string rec = watch_tmp("starved.jsonl");
  auto args = watch_args("starved-sawtooth-imbalanced");
  args.insert(args.end(), {"--record", rec, "--format", "json"});
  auto r = run_plumb(args);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto live = watch_statuses(r.out);
  EXPECT_EQ(live["l2.compute.gpu_underutilized gpu 0000:3b:00.0"], "fail");
  EXPECT_EQ(live["l2.watch.vram_sawtooth gpu 0000:3b:00.0"], "warn");
  EXPECT_EQ(live["l2.watch.vram_sawtooth gpu 0000:5e:00.0"], "pass");
  EXPECT_EQ(live["l2.watch.pcie_imbalance gpu 0000:3b:00.0"], "warn");
  EXPECT_EQ(live["l2.watch.throttling gpu 0000:5e:00.0"], "fail");
  EXPECT_EQ(live["l2.watch.summary host"], "info");
  auto again = run_plumb({"report", rec, "--format", "json"});
  EXPECT_EQ(again.exit_code, 1) << again.err;
  EXPECT_EQ(watch_statuses(again.out), live);
  std::remove(rec.c_str());
}

TEST(WatchE2E, CsvRecordingReplaysToTheSameVerdict) {
  std::string rec = watch_tmp("starved.csv");
  auto args = watch_args("starved-sawtooth-imbalanced");
  args.insert(args.end(), {"--record", rec, "--format", "json", "--quiet"});
  auto r = run_plumb(args);
  auto again = run_plumb({"report", rec, "--format", "json"});
  EXPECT_EQ(again.exit_code, 1) << again.err;
  EXPECT_EQ(watch_statuses(again.out), watch_statuses(r.out));
  std::remove(rec.c_str());
}

TEST(WatchE2E, HealthyRunPassesWithPlainLinesWhenNotATerminal) {
  auto r = run_plumb(watch_args("healthy"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("t=0s "), std::string::npos);
  EXPECT_EQ(r.out.find("\033["), std::string::npos);   // no control sequences in a pipe
  EXPECT_NE(r.out.find("l2.compute.gpu_underutilized"), std::string::npos);
}

TEST(WatchE2E, LiveScreenOnATerminalIsRefreshedInPlace) {
  Child c({"watch", "--duration", "300ms", "--interval", "100ms", "--root", procfs(), "--gpu-script", script("healthy")}, true);
  ASSERT_TRUE(c.started());
  auto rc = c.wait(20s);
  ASSERT_TRUE(rc.has_value());
  EXPECT_EQ(*rc, 0) << c.output();
  const std::string& out = c.output();
  // Home + clear before each screen, one screen per sample, then the summary.
  std::size_t screens = 0;
  for (auto p = out.find("\033[H\033[2J"); p != std::string::npos; p = out.find("\033[H\033[2J", p + 1)) ++screens;
  EXPECT_GE(screens, 4u);
  EXPECT_NE(out.find("0000:3b:00.0"), std::string::npos);
  EXPECT_NE(out.find("l2.watch.summary"), std::string::npos);
}

TEST(WatchE2E, CtrlCStopsSamplingAndPrintsTheSummary) {
  Child c({"watch", "--interval", "100ms", "--root", procfs(), "--gpu-script", script("healthy")});
  ASSERT_TRUE(c.started());
  ASSERT_TRUE(c.read_until("t=0.", 20s)) << c.output();
  c.signal(SIGINT);
  auto rc = c.wait(20s);
  ASSERT_TRUE(rc.has_value()) << "watch did not stop on SIGINT";
  EXPECT_LT(*rc, 2) << c.output();
  EXPECT_NE(c.output().find("l2.watch.summary"), std::string::npos);
}

TEST(WatchE2E, SigtermAlsoEndsTheWatchCleanly) {
  Child c({"watch", "--interval", "100ms", "--root", procfs(), "--gpu-script", script("healthy")});
  ASSERT_TRUE(c.started());
  ASSERT_TRUE(c.read_until("t=0", 20s)) << c.output();  // handlers are in place once sampling runs
  c.signal(SIGTERM);
  auto rc = c.wait(20s);
  ASSERT_TRUE(rc.has_value());
  EXPECT_LT(*rc, 2) << c.output();
}

TEST(WatchE2E, BadInputIsOneLineAndExitTwo) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  std::vector<Case> cases{
      {{"watch", "--interval", "5x"}, "unknown unit"},
      {{"watch", "--duration", "soon"}, "not a duration"},
      {{"watch", "--interval", "1ms"}, "at least 10ms"},
      {{"watch", "--gpu-script", "/nonexistent.json", "--duration", "1s"}, "/nonexistent.json"},
      {{"watch", "--root", procfs(), "--gpu-script", script("healthy"), "--duration", "1s", "--record", "/nonexistent-dir/r.jsonl"},
       "/nonexistent-dir/r.jsonl"},
      {{"watch", "--root", procfs(), "--pid", "999999", "--duration", "1s"}, "999999"},
      {{"report", fixture("watch/gpu-scripts/healthy.json")}, "not a plumb snapshot"},
  };
  for (const auto& c : cases) {
    auto r = run_plumb(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args[1] << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(WatchE2E, CheckFormatPromWritesAValidTextfile) {
  std::string out = watch_tmp("check.prom");
  auto r = run_plumb({"check", "--root", procfs(), "--format", "prom", "--out", out});
  EXPECT_LT(r.exit_code, 2) << r.err;
  auto text = read_user_file(out);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("# TYPE plumb_findings gauge"), std::string::npos);
  EXPECT_NE(text->find("plumb_check_exit_code "), std::string::npos);
  EXPECT_NE(text->find("plumb_collector_success{collector=\"collect.os\"}"), std::string::npos);
  std::string tool = promtool();
  if (tool.empty()) {
    std::remove(out.c_str());
    GTEST_SKIP() << "promtool not installed (Debian package: prometheus)";
  }
  RunOptions o;
  o.stdin_data = *text;
  auto check = run_program({tool, "check", "metrics"}, o);
  ASSERT_TRUE(check.ok());
  EXPECT_EQ(check->exit_code, 0) << check->out << check->err;
  EXPECT_EQ(check->out + check->err, "") << "promtool lint findings";
  std::remove(out.c_str());
}

// A host name is whatever bytes sethostname(2) was given. One that is not UTF-8 must not make
// Prometheus refuse the scrape (its parser rejects such a label value, and every metric with it).
TEST(WatchE2E, AHostNameThatIsNotUtf8StillGivesAValidTextfile) {
  ScratchRoot root("prom_hostname");
  root.copy_dir(procfs(), "");
  root.write("proc/sys/kernel/hostname", "gpu\xff\xfe-node\n");
  std::string out = watch_tmp("hostname.prom");
  auto r = run_plumb({"check", "--root", root.path(), "--format", "prom", "--out", out});
  EXPECT_LT(r.exit_code, 2) << r.err;
  auto text = read_user_file(out);
  std::remove(out.c_str());
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("hostname=\"gpu\xEF\xBF\xBD\xEF\xBF\xBD-node\""), std::string::npos) << text->substr(0, 600);
  std::string tool = promtool();
  if (tool.empty()) GTEST_SKIP() << "promtool not installed (Debian package: prometheus)";
  RunOptions o;
  o.stdin_data = *text;
  auto check = run_program({tool, "check", "metrics"}, o);
  ASSERT_TRUE(check.ok());
  EXPECT_EQ(check->exit_code, 0) << check->out << check->err;
}

}  // namespace
}  // namespace plumb::test
