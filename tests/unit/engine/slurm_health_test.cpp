// Slurm health check ownership: which node plumb drains, resumes or leaves alone, the drain
// reason, the scontrol command lines, and one run against a scripted scontrol.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/slurm_health.h"
#include "core/catalog.h"
#include "../../test_util.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;

SlurmNode node(const std::string& state, const std::string& reason) {
  std::string text = "NodeName=n1 State=" + state;
  if (!reason.empty()) text += " Reason=" + reason + " [root@2024-01-01T00:00:00]";
  return parse_scontrol_node(text, "n1").value();
}

Finding fail(const std::string& id, const std::string& what, const std::string& value) {
  Finding f;
  f.id = id;
  f.status = Status::fail;
  f.add(what, value, "/sys/x");
  return f;
}

std::string some_id(int nth) {
  int i = 0;
  for (const auto& [id, e] : catalog()) {
    if (id.rfind("l3.", 0) == 0 && i++ == nth) return id;
  }
  return "l3.x";
}

TEST(SlurmOwnership, HealthyNodes) {
  EXPECT_EQ(decide_slurm_action(node("IDLE", ""), "").action, SlurmAction::none);
  EXPECT_EQ(decide_slurm_action(node("IDLE+DRAIN", "plumb: l3.a: x 1"), "").action, SlurmAction::resume);
  EXPECT_EQ(decide_slurm_action(node("DOWN", "plumb: l3.a: x 1"), "").action, SlurmAction::resume);
  // An operator's drain, Slurm's own "Not responding" and a reason that only mentions plumb later
  // are never plumb's to lift.
  EXPECT_EQ(decide_slurm_action(node("IDLE+DRAIN", "bad dimm"), "").action, SlurmAction::left_alone);
  EXPECT_EQ(decide_slurm_action(node("DOWN+NOT_RESPONDING", "Not responding"), "").action, SlurmAction::left_alone);
  EXPECT_EQ(decide_slurm_action(node("IDLE+DRAIN", "see plumb: report"), "").action, SlurmAction::left_alone);
  EXPECT_EQ(decide_slurm_action(node("IDLE+DRAIN", "Plumb: upper case is someone else"), "").action, SlurmAction::left_alone);
  EXPECT_EQ(decide_slurm_action(node("IDLE+DRAIN", ""), "").action, SlurmAction::left_alone);
}

TEST(SlurmOwnership, FailingNodes) {
  const std::string want = "plumb: l3.a: x 1";
  auto d = decide_slurm_action(node("IDLE", ""), want);
  EXPECT_EQ(d.action, SlurmAction::drain);
  EXPECT_EQ(d.reason, want);
  EXPECT_EQ(decide_slurm_action(node("MIXED", ""), want).action, SlurmAction::drain);
  EXPECT_EQ(decide_slurm_action(node("IDLE+DRAIN", want), want).action, SlurmAction::none);
  auto r = decide_slurm_action(node("IDLE+DRAIN", "plumb: l3.b: y 2"), want);
  EXPECT_EQ(r.action, SlurmAction::reason);
  EXPECT_EQ(r.reason, want);
  EXPECT_EQ(decide_slurm_action(node("IDLE+DRAIN", "bad dimm"), want).action, SlurmAction::left_alone);
  EXPECT_EQ(decide_slurm_action(node("DOWN+NOT_RESPONDING", "Not responding"), want).action, SlurmAction::left_alone);
}

TEST(SlurmReason, NamesTheFirstFailureAndCountsTheRest) {
  std::string a = some_id(0), b = some_id(1);
  Finding pass;
  pass.id = a;
  pass.status = Status::pass;
  EXPECT_EQ(drain_reason({pass}), "");
  EXPECT_EQ(drain_reason({pass, fail(a, "scaling_governor", "powersave")}), "plumb: " + a + ": scaling_governor powersave");
  auto two = drain_reason({fail(a, "w", "1"), fail(b, "v", "2")});
  EXPECT_EQ(two.rfind("plumb: ", 0), 0u);
  EXPECT_NE(two.find(" (+1 more)"), std::string::npos) << two;
  // Long and multi-line evidence: one line, bounded, the count kept.
  auto long_one = drain_reason({fail(a, "w", std::string(500, 'x') + "\nsecond"), fail(b, "v", "2")});
  EXPECT_LE(long_one.size(), kMaxDrainReason);
  EXPECT_EQ(long_one.find('\n'), std::string::npos);
  EXPECT_EQ(long_one.substr(long_one.size() - 10), " (+1 more)") << long_one;
}

TEST(SlurmCommand, ArgvAndTheShellFormOfDryRun) {
  ScontrolSetup s{"/usr/bin/scontrol", "/etc/slurm/slurm.conf", "gpu-17"};
  EXPECT_EQ(scontrol_show_argv(s), (std::vector<std::string>{"/usr/bin/scontrol", "-o", "show", "node", "gpu-17"}));
  SlurmDecision drain{SlurmAction::drain, "plumb: l3.a: it's 1"};
  auto argv = scontrol_update_argv(s, drain);
  EXPECT_EQ(argv, (std::vector<std::string>{"/usr/bin/scontrol", "update", "NodeName=gpu-17", "State=DRAIN", "Reason=plumb: l3.a: it's 1"}));
  EXPECT_EQ(shell_command(argv, s.slurm_conf),
            "SLURM_CONF=/etc/slurm/slurm.conf /usr/bin/scontrol update NodeName=gpu-17 State=DRAIN 'Reason=plumb: l3.a: it'\\''s 1'");
  EXPECT_EQ(scontrol_update_argv(s, {SlurmAction::resume, ""}).back(), "State=RESUME");
  EXPECT_TRUE(scontrol_update_argv(s, {SlurmAction::left_alone, ""}).empty());
  EXPECT_TRUE(scontrol_update_argv(s, {SlurmAction::none, ""}).empty());
}

TEST(SlurmSetup, ScontrolByAbsolutePathOnlyAndNodeNames) {
  EXPECT_FALSE(find_scontrol("scontrol").ok());
  EXPECT_FALSE(find_scontrol("/nonexistent/scontrol").ok());
  EXPECT_TRUE(find_scontrol("/bin/sh").ok());
  EXPECT_EQ(slurm_node_name("gpu-17").value(), "gpu-17");
  EXPECT_FALSE(slurm_node_name("a b").ok());
  EXPECT_FALSE(slurm_node_name("a=b").ok());
  auto host = slurm_node_name("");
  ASSERT_TRUE(host.ok());
  EXPECT_EQ(host->find('.'), std::string::npos);
}

// A scripted scontrol: prints a captured `show node` for "show" and records every call.
struct FakeScontrol {
  fs::path dir;
  explicit FakeScontrol(const std::string& show_fixture, int update_exit = 0)
      : dir(fs::path(::testing::TempDir()) / ("plumb_fake_scontrol_" + std::to_string(::getpid()) + "_" + std::to_string(next()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "show.txt") << test::read_fixture(show_fixture);
    std::ofstream sh(dir / "scontrol");
    sh << "#!/bin/sh\n"
       << "printf '%s|' \"$SLURM_CONF\" \"$@\" >> '" << (dir / "calls").string() << "'\n"
       << "echo >> '" << (dir / "calls").string() << "'\n"
       << "[ \"$2\" = show ] && exec cat '" << (dir / "show.txt").string() << "'\n"
       << "exit " << update_exit << "\n";
    sh.close();
    ::chmod((dir / "scontrol").c_str(), 0755);
  }
  ~FakeScontrol() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  FakeScontrol(const FakeScontrol&) = delete;
  FakeScontrol& operator=(const FakeScontrol&) = delete;
  static int next() {
    static int n = 0;
    return ++n;
  }
  [[nodiscard]] ScontrolSetup setup() const { return {(dir / "scontrol").string(), "/etc/x/slurm.conf", "plumbnode"}; }
  [[nodiscard]] std::string calls() const {
    auto r = read_user_file((dir / "calls").string());
    return r ? *r : "";
  }
};

TEST(SlurmRunScripted, DrainsAnIdleNodeOnAFailure) {
  FakeScontrol fake("slurm/idle.oneline.txt");
  auto run = run_slurm_health({fail(some_id(0), "w", "1")}, fake.setup(), false, std::chrono::seconds(10), Lang::en);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.decision.action, SlurmAction::drain);
  std::string expect = "/etc/x/slurm.conf|-o|show|node|plumbnode|\n/etc/x/slurm.conf|update|NodeName=plumbnode|State=DRAIN|Reason=plumb: " +
                       some_id(0) + ": w 1|\n";
  EXPECT_EQ(fake.calls(), expect);
  ASSERT_EQ(run.lines.size(), 1u);
  EXPECT_EQ(run.lines[0].rfind("drained plumbnode: plumb: ", 0), 0u) << run.lines[0];
}

TEST(SlurmRunScripted, LeavesAnOperatorDrainAloneAndDryRunOnlyPrints) {
  FakeScontrol op("slurm/drained-operator.oneline.txt");
  auto run = run_slurm_health({}, op.setup(), false, std::chrono::seconds(10), Lang::en);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.decision.action, SlurmAction::left_alone);
  std::string op_calls = op.calls();
  EXPECT_EQ(std::count(op_calls.begin(), op_calls.end(), '\n'), 1) << "only the state query: " << op_calls;

  FakeScontrol mine("slurm/drained-plumb.oneline.txt");
  auto dry = run_slurm_health({}, mine.setup(), true, std::chrono::seconds(10), Lang::en);
  EXPECT_EQ(dry.decision.action, SlurmAction::resume);
  std::string mine_calls = mine.calls();
  EXPECT_EQ(std::count(mine_calls.begin(), mine_calls.end(), '\n'), 1) << mine_calls;
  ASSERT_EQ(dry.lines.size(), 1u);
  EXPECT_NE(dry.lines[0].find("SLURM_CONF=/etc/x/slurm.conf " + mine.setup().scontrol + " update NodeName=plumbnode State=RESUME"),
            std::string::npos)
      << dry.lines[0];
}

// No failure but a collector that timed out: the check could not look, so a node plumb drained is
// not resumed (nor anything drained); exit 2, the line names the collector.
TEST(SlurmRunScripted, AnIncompleteCheckResumesNothing) {
  FakeScontrol fake("slurm/drained-plumb.oneline.txt");
  Finding late;
  late.id = some_id(0);
  late.status = Status::skip;
  late.args = {{"reason", "collect.gpu timed out (no answer within 2 ms)"}, {"timed_out", "collect.gpu"}};
  auto run = run_slurm_health({late}, fake.setup(), false, std::chrono::seconds(10), Lang::en);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.decision.action, SlurmAction::none);
  std::string calls = fake.calls();
  EXPECT_EQ(std::count(calls.begin(), calls.end(), '\n'), 1) << "only the state query: " << calls;
  ASSERT_EQ(run.lines.size(), 1u);
  EXPECT_NE(run.lines[0].find("collect.gpu timed out"), std::string::npos) << run.lines[0];
}

TEST(SlurmRunScripted, AFailedUpdateIsExitTwo) {
  FakeScontrol fake("slurm/drained-plumb.oneline.txt", 1);
  auto run = run_slurm_health({}, fake.setup(), false, std::chrono::seconds(10), Lang::en);
  EXPECT_EQ(run.exit_code, 2);
  ASSERT_EQ(run.lines.size(), 1u);
  EXPECT_EQ(run.lines[0].rfind("could not update node plumbnode", 0), 0u) << run.lines[0];
  ScontrolSetup missing{"/nonexistent/scontrol", "/etc/x/slurm.conf", "plumbnode"};
  EXPECT_EQ(run_slurm_health({}, missing, false, std::chrono::seconds(10), Lang::en).exit_code, 2);
}

}  // namespace
}  // namespace plumb
