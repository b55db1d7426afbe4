// End to end: `plumb agent --once` cycles on a fixture root whose boot id changes between cycles,
// `plumb events` (JSON shape, ack), a corrupt state database, hostile input, and kill -9 during
// cycles (the database stays intact and no committed event is lost).
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>
#include <map>
#include <functional>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "core/json.h"
#include "../scratch_root.h"
#include "../test_util.h"
#include "watch_spawn.h"

namespace plumb {
namespace {

const char* kXid79 = "[  12.5] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.\n";

// A fixture host with a boot id and a kernel log file beside it.
class AgentHost {
 public:
  explicit AgentHost(const std::string& name) : dir_(name) {
    dir_.copy_dir(test::host_fixture("healthy"), "root");
    boot(1);
    dir_.write("kmsg.log", "[   0.0] Linux version 6.1.0\n");
  }
  void boot(int n) {
    char id[40];
    std::snprintf(id, sizeof id, "%08d-0000-4000-8000-000000000000", n);
    dir_.write("root/proc/sys/kernel/random/boot_id", std::string(id) + "\n");
  }
  void boot_text(const std::string& text) const { dir_.write("root/proc/sys/kernel/random/boot_id", text + "\n"); }
  void log(const std::string& line) const {
    std::ofstream(dir_.path() + "/kmsg.log", std::ios::app) << line;
  }
  void write(const std::string& rel, const std::string& text) const { dir_.write(rel, text); }
  [[nodiscard]] std::string path() const { return dir_.path(); }
  [[nodiscard]] std::string state() const { return dir_.path() + "/state"; }
  [[nodiscard]] std::string db() const { return state() + "/plumb-agent.db"; }
  [[nodiscard]] std::vector<std::string> cycle_args(const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> a{"agent", "--once", "--root", dir_.path() + "/root", "--kmsg", dir_.path() + "/kmsg.log",
                               "--state-dir", state(), "--no-bench", "--nvml-lib", dir_.path() + "/root/no-nvml.so",
                               "--format", "json"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  [[nodiscard]] RunOutput cycle(const std::vector<std::string>& extra = {}) const { return test::run_plumb(cycle_args(extra)); }
  [[nodiscard]] json events() const {
    auto r = test::run_plumb({"events", "--state-dir", state(), "--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }

 private:
  test::ScratchRoot dir_;
};

// The findings of one id in a JSON report.
std::vector<json> findings_of(const std::string& report, const std::string& id) {
  json doc = json::parse(report, nullptr, false);
  std::vector<json> out;
  if (doc.is_discarded()) {
    ADD_FAILURE() << "not JSON: " << report.substr(0, 300);
    return out;
  }
  for (const auto& f : doc["findings"]) {
    if (f["id"] == id) out.push_back(f);
  }
  return out;
}

TEST(AgentE2E, SameXidInThreeBootsEscalatesToHardwareInspection) {
  AgentHost h("agent_three_boots");
  h.log(kXid79);
  std::vector<std::string> expect{"pass", "warn", "fail"};
  for (int b = 1; b <= 3; ++b) {
    h.boot(b);
    auto r = h.cycle();
    EXPECT_EQ(r.exit_code, 1) << r.err;  // the Xid itself fails the check in every cycle
    auto rec = findings_of(r.out, "l3.platform.recurring_fault");
    ASSERT_EQ(rec.size(), 1U) << r.out.substr(0, 400);
    EXPECT_EQ(rec[0]["status"], expect[b - 1]) << "cycle " << b;
    EXPECT_EQ(findings_of(r.out, "l3.gpu.xid").at(0)["status"], "fail");
    if (b == 3) {
      EXPECT_EQ(rec[0]["subject"], "0000:3b:00 xid 79");
      EXPECT_EQ(rec[0]["variant"], "inspect");
      EXPECT_EQ(rec[0]["args"]["boots"], "3");
      EXPECT_NE(rec[0]["message"].get<std::string>().find("hardware inspection"), std::string::npos) << rec[0].dump();
      for (int i = 1; i <= 3; ++i) {
        EXPECT_NE(rec[0]["args"]["boot_list"].get<std::string>().find("0000000" + std::to_string(i) + "-0000"), std::string::npos);
      }
      EXPECT_NE(rec[0]["threshold"].get<std::string>().find("history.reboots_to_inspect"), std::string::npos);
    }
  }
  json ev = h.events();
  ASSERT_TRUE(ev.contains("events")) << ev.dump();
  ASSERT_EQ(ev["events"].size(), 3U);
  std::set<std::string> boots;
  for (const auto& e : ev["events"]) {
    for (const char* k : {"id", "time", "boot_id", "kind", "subject", "code", "evidence", "finding", "acked"}) {
      EXPECT_TRUE(e.contains(k)) << k << " missing in " << e.dump();
    }
    EXPECT_EQ(e["kind"], "xid");
    EXPECT_EQ(e["subject"], "0000:3b:00");
    EXPECT_EQ(e["code"], "79");
    EXPECT_EQ(e["finding"], "l3.gpu.xid");
    boots.insert(e["boot_id"].get<std::string>());
  }
  EXPECT_EQ(boots.size(), 3U);
  EXPECT_EQ(ev["events"][0]["boot_id"], "00000003-0000-4000-8000-000000000000");  // newest first
}

TEST(AgentE2E, CyclesInOneBootStoreALineOnce) {
  AgentHost h("agent_one_boot");
  h.log(kXid79);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(h.cycle({"--only", "l3.platform"}).exit_code, 0);
  EXPECT_EQ(h.events()["events"].size(), 1U);
  h.log("[  20.0] NVRM: Xid (PCI:0000:86:00): 48, pid=1, An uncorrectable double bit error (DBE) has been detected.\n");
  EXPECT_EQ(h.cycle({"--only", "l3.platform"}).exit_code, 0);
  auto ev = h.events()["events"];
  ASSERT_EQ(ev.size(), 2U);
  EXPECT_EQ(ev[0]["subject"], "0000:86:00");
  auto kind = test::run_plumb({"events", "--state-dir", h.state(), "--kind", "oom_kill", "--format", "json"});
  EXPECT_EQ(json::parse(kind.out)["events"].size(), 0U);
  auto md = test::run_plumb({"events", "--state-dir", h.state(), "--format", "md"});
  EXPECT_EQ(md.exit_code, 0);
  EXPECT_NE(md.out.find("0000:86:00"), std::string::npos);
  auto zh = test::run_plumb({"events", "--state-dir", h.state(), "--lang", "zh"});
  EXPECT_NE(zh.out.find("类型"), std::string::npos) << zh.out;
}

TEST(AgentE2E, AcknowledgedEventDoesNotCountTowardEscalation) {
  AgentHost h("agent_ack");
  h.log(kXid79);
  for (int b = 1; b <= 3; ++b) {
    h.boot(b);
    ASSERT_NE(h.cycle({"--only", "l3.platform"}).exit_code, 2);
  }
  auto first = h.events()["events"].back();  // the oldest: boot 1
  std::string id = std::to_string(first["id"].get<long long>());
  auto ack = test::run_plumb({"events", "ack", id, "--reason", "GPU reseated", "--state-dir", h.state()});
  EXPECT_EQ(ack.exit_code, 0) << ack.err;
  EXPECT_NE(ack.out.find("acknowledged"), std::string::npos);
  auto r = h.cycle({"--only", "l3.platform"});
  auto rec = findings_of(r.out, "l3.platform.recurring_fault");
  ASSERT_EQ(rec.size(), 1U);
  EXPECT_EQ(rec[0]["status"], "warn");
  EXPECT_EQ(rec[0]["args"]["boots"], "2");
  EXPECT_TRUE(h.events()["events"].back()["acked"].get<bool>());
  // The acknowledgement is stored with its time and reason.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(h.db().c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT event_id, time, reason FROM acks", -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(std::to_string(sqlite3_column_int64(s, 0)), id);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 1))).size(), 20U);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 2))), "GPU reseated");
  sqlite3_finalize(s);
  sqlite3_close(db);
}

TEST(AgentE2E, CorruptStateDatabaseIsMovedAside) {
  AgentHost h("agent_corrupt");
  std::filesystem::create_directories(h.state());
  std::ofstream(h.db()) << std::string(4096, 'z');
  h.log(kXid79);
  auto r = h.cycle({"--only", "l3.platform"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("was corrupt"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  int moved = 0;
  for (const auto& e : std::filesystem::directory_iterator(h.state())) {
    if (e.path().filename().string().rfind("plumb-agent.db.corrupt-", 0) == 0) ++moved;
  }
  EXPECT_EQ(moved, 1);
  EXPECT_EQ(h.events()["events"].size(), 1U);
}

TEST(AgentE2E, LockedDatabaseIsOneLineAndExitTwoWhileEventsStillReads) {
  AgentHost h("agent_locked");
  h.log(kXid79);
  ASSERT_EQ(h.cycle({"--only", "l3.platform"}).exit_code, 0);
  h.boot(2);
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(h.db().c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "BEGIN EXCLUSIVE; DELETE FROM results;", nullptr, nullptr, nullptr), SQLITE_OK);
  auto start = std::chrono::steady_clock::now();
  auto r = h.cycle({"--only", "l3.platform"});
  auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(h.events()["events"].size(), 1U);  // a reader is not held up by the writer's lock
  sqlite3_exec(raw, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("locked"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_LT(waited, std::chrono::seconds(15));
  EXPECT_EQ(h.cycle({"--only", "l3.platform"}).exit_code, 0);  // the next cycle, the lock gone, goes on
  EXPECT_EQ(h.events()["events"].size(), 2U);
}

// A state directory the agent may not write: run as an unprivileged user (root writes anywhere).
TEST(AgentE2E, ReadOnlyStateDirectoryIsOneLineAndExitTwo) {
  if (::geteuid() != 0 || !std::filesystem::exists("/usr/bin/setpriv")) GTEST_SKIP() << "needs root and setpriv to drop to another user";
  AgentHost h("agent_read_only");
  std::filesystem::create_directories(h.state());
  std::filesystem::permissions(h.state(), std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                              std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                              std::filesystem::perms::others_exec);
  std::vector<std::string> argv{"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", PLUMB_BINARY};
  auto args = h.cycle_args({"--only", "l3.platform"});
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions o;
  o.timeout = std::chrono::seconds(60);
  o.extra_env = {{"LANG", "C"}, {"LC_ALL", ""}, {"NO_COLOR", "1"}};
  auto r = run_program(argv, o);
  ASSERT_TRUE(r) << r.error().describe();
  if (r->err.find("setpriv:") != std::string::npos) GTEST_SKIP() << r->err;
  EXPECT_EQ(r->exit_code, 2) << r->out << r->err;
  EXPECT_NE(r->err.find("state database"), std::string::npos) << r->err;
  EXPECT_EQ(std::count(r->err.begin(), r->err.end(), '\n'), 1) << r->err;
}

TEST(AgentE2E, HostileInputIsOneLineAndExitTwo) {
  AgentHost h("agent_hostile");
  ASSERT_EQ(h.cycle({"--only", "l3.platform"}).exit_code, 0);
  const std::vector<std::vector<std::string>> bad{
      {"agent", "--once", "--state-dir", "/proc/plumb-no-such-dir/state", "--no-bench", "--only", "l3.platform"},
      {"events", "ack", "abc", "--reason", "x", "--state-dir", h.state()},
      {"events", "ack", "999", "--reason", "x", "--state-dir", h.state()},
      {"events", "ack", "1", "--state-dir", h.state()},
      {"events", "ack", "1", "--reason", "two\nlines", "--state-dir", h.state()},
      {"events", "--since", "soon", "--state-dir", h.state()},
      {"events", "frobnicate", "--state-dir", h.state()},
      {"agent", "--once", "--interval", "-5", "--state-dir", h.state()},
  };
  for (const auto& args : bad) {
    auto r = test::run_plumb(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[1] << ": " << r.out << r.err;
    EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  }
  // A boot id that is not one, and a root that does not exist.
  AgentHost odd("agent_bad_boot");
  odd.boot_text("../../etc/passwd\x1b[31m");
  auto r = odd.cycle({"--only", "l3.platform"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("boot id"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(test::run_plumb({"agent", "--once", "--root", "/nonexistent-root-dir", "--state-dir", odd.state()}).exit_code, 2);
}

TEST(AgentE2E, WithoutOnceCyclesUntilSigterm) {
  AgentHost h("agent_loop");
  h.log(kXid79);
  std::vector<std::string> args = h.cycle_args({"--only", "l3.platform", "--interval", "200ms", "--listen", "none"});
  args.erase(std::find(args.begin(), args.end(), "--once"));
  args.erase(std::find(args.begin(), args.end(), "--format"), std::find(args.begin(), args.end(), "--format") + 2);
  args.push_back("-q");
  test::Child c(args);
  ASSERT_TRUE(c.started());
  EXPECT_TRUE(c.read_until_count("passed", 3, std::chrono::seconds(20))) << c.output();
  c.signal(SIGTERM);
  auto rc = c.wait(std::chrono::seconds(10));
  ASSERT_TRUE(rc.has_value());
  EXPECT_EQ(*rc, 0) << c.output();
  EXPECT_EQ(h.events()["events"].size(), 1U);  // three cycles, one boot, one line
}

TEST(AgentE2E, KillNineDuringCyclesLosesNoCommittedEvent) {
  AgentHost h("agent_kill9");
  std::mt19937 rng(20261207);
  std::uniform_int_distribution<int> delay_ms(0, 60);
  std::set<long long> committed;  // event ids seen in the database after a kill
  int lines = 0, killed = 0;
  for (int round = 0; round < 20; ++round) {
    // Enough lines per round that a kill often lands inside the cycle's transaction.
    std::string text;
    for (int i = 0; i < 200; ++i) {
      char line[160];
      std::snprintf(line, sizeof line, "[ %4d.%03d] NVRM: Xid (PCI:0000:%02x:00): 79, pid=1, GPU has fallen off the bus.\n", round + 10, i, round);
      text += line;
      ++lines;
    }
    h.log(text);
    {
      test::Child c(h.cycle_args({"--only", "l3.platform"}));
      ASSERT_TRUE(c.started());
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
      c.signal(SIGKILL);
      auto rc = c.wait(std::chrono::seconds(30));
      ASSERT_TRUE(rc.has_value());
      if (*rc == 128 + SIGKILL) ++killed;
    }
    if (!std::filesystem::exists(h.db())) continue;
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(h.db().c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT id FROM events", -1, &s, nullptr) == SQLITE_OK) {
      std::set<long long> now;
      while (sqlite3_step(s) == SQLITE_ROW) now.insert(sqlite3_column_int64(s, 0));
      for (long long id : committed) EXPECT_TRUE(now.count(id) == 1) << "event " << id << " lost after round " << round;
      committed.insert(now.begin(), now.end());
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
  }
  EXPECT_GT(killed, 0) << "no kill landed inside a cycle";
  // One cycle that runs to its end reads what the killed ones left: every line once.
  auto r = h.cycle({"--only", "l3.platform"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(h.events()["events"].size(), static_cast<std::size_t>(lines));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(h.db().c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 0))), "ok");
  sqlite3_finalize(s);
  sqlite3_close(db);
  std::set<long long> final_ids;
  const json final_events = h.events();
  for (const auto& e : final_events["events"]) final_ids.insert(e["id"].get<long long>());
  for (long long id : committed) EXPECT_EQ(final_ids.count(id), 1U) << "event " << id;
}


TEST(AgentE2E, CountersThatRiseBetweenCyclesFail) {
  AgentHost h("agent_counters");
  const std::string ib = "root/sys/class/infiniband/mlx5_0/ports/1/counters/";
  const std::string aer = "root/sys/bus/pci/devices/0000:3b:00.0/aer_dev_correctable";
  h.write(ib + "link_downed", "0\n");
  h.write(ib + "symbol_error", "12\n");
  h.write(aer, "RxErr 0\nBadTLP 2\nTOTAL_ERR_COR 2\n");
  auto first = h.cycle({"--only", "l3.platform.rising_counter"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto pass = findings_of(first.out, "l3.platform.rising_counter");
  ASSERT_EQ(pass.size(), 1U);
  EXPECT_EQ(pass[0]["status"], "pass");
  EXPECT_EQ(pass[0]["args"]["counters"], "3");
  // One more link_downed (every one is a fault), three more correctable AER errors (a warning),
  // symbol errors unchanged.
  h.write(ib + "link_downed", "1\n");
  h.write(aer, "RxErr 0\nBadTLP 5\nTOTAL_ERR_COR 5\n");
  auto second = h.cycle({"--only", "l3.platform.rising_counter"});
  EXPECT_EQ(second.exit_code, 1) << second.err;
  auto got = findings_of(second.out, "l3.platform.rising_counter");
  ASSERT_EQ(got.size(), 2U) << second.out;
  std::map<std::string, std::string> by_subject;
  for (const auto& f : got) by_subject[f["subject"]] = f["status"];
  EXPECT_EQ(by_subject["mlx5_0 port 1 ib.link_downed"], "fail");
  EXPECT_EQ(by_subject["0000:3b:00.0 pcie.aer_correctable"], "warn");
  // A new boot starts the counters again: its first reading is no rise.
  h.boot(2);
  auto third = h.cycle({"--only", "l3.platform.rising_counter"});
  EXPECT_EQ(third.exit_code, 0) << third.out;
}

TEST(AgentE2E, APortDownIsAWarningUntilItPersists) {
  AgentHost h("agent_persist");
  const std::string port = "root/sys/class/infiniband/mlx5_0/ports/1/";
  h.write(port + "state", "1: DOWN\n");
  h.write(port + "phys_state", "3: Disabled\n");
  h.write(port + "rate", "10 Gb/sec (4X)\n");
  h.write(port + "link_layer", "InfiniBand\n");
  auto fresh = h.cycle({"--only", "l3.comm.ib_ports"});
  auto held = findings_of(fresh.out, "l3.comm.ib_ports");
  ASSERT_EQ(held.size(), 1U) << fresh.out;
  EXPECT_EQ(held[0]["status"], "warn");
  EXPECT_EQ(held[0]["args"]["held"], "1");
  // With history.persist_minutes = 0 the same state has persisted long enough: it fails.
  h.write("now.toml", "[thresholds]\n\"history.persist_minutes\" = 0\n");
  auto now = h.cycle({"--only", "l3.comm.ib_ports", "--config", h.path() + "/now.toml"});
  EXPECT_EQ(now.exit_code, 1) << now.err;
  auto failed = findings_of(now.out, "l3.comm.ib_ports");
  ASSERT_EQ(failed.size(), 1U);
  EXPECT_EQ(failed[0]["status"], "fail");
  EXPECT_FALSE(failed[0]["args"].contains("held"));
}

TEST(AgentE2E, LoopFollowsTheKernelLogAndServesItsStateOnLoopback) {
  AgentHost h("agent_serve");
  std::vector<std::string> args = h.cycle_args({"--only", "l3.platform", "--interval", "1h", "--follow", "100ms", "--listen", "127.0.0.1:0"});
  args.erase(std::find(args.begin(), args.end(), "--once"));
  args.erase(std::find(args.begin(), args.end(), "--format"), std::find(args.begin(), args.end(), "--format") + 2);
  args.push_back("-q");
  test::Child c(args);
  ASSERT_TRUE(c.started());
  ASSERT_TRUE(c.read_until("/state)", std::chrono::seconds(20))) << c.output();
  std::smatch m;
  const std::string out = c.output();
  ASSERT_TRUE(std::regex_search(out, m, std::regex("http://127\\.0\\.0\\.1:([0-9]+)/"))) << out;
  const int port = std::stoi(m[1]);
  auto state_until = [&](const std::function<bool(const json&)>& ok) {
    json doc;
    for (int i = 0; i < 200; ++i) {
      doc = json::parse(test::body_of(test::http_get(port, "/state")), nullptr, false);
      if (doc.is_object() && ok(doc)) return doc;
      c.read_until("\x01never", std::chrono::milliseconds(50));
    }
    return doc;
  };
  json first = state_until([](const json& d) { return d.value("cycles", 0) >= 1; });
  ASSERT_EQ(first.value("cycles", 0), 1) << first.dump();
  EXPECT_EQ(first["events"]["total"], 0);
  // A line written after the cycle is read within --follow, long before the next cycle (1 h).
  h.log(kXid79);
  json after = state_until([](const json& d) { return d["events"].value("total", 0) >= 1; });
  EXPECT_EQ(after["events"]["by_kind"]["xid"], 1) << after.dump();
  EXPECT_EQ(after["cycles"], 1);
  EXPECT_EQ(after["boot_id"], "00000001-0000-4000-8000-000000000000");
  const std::string metrics = test::body_of(test::http_get(port, "/metrics"));
  EXPECT_NE(metrics.find("plumb_agent_events{kind=\"xid\"} 1"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("plumb_agent_cycles_total 1"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("plumb_check_exit_code"), std::string::npos) << metrics.substr(0, 2000);
  c.signal(SIGTERM);
  auto rc = c.wait(std::chrono::seconds(10));
  ASSERT_TRUE(rc.has_value());
  EXPECT_EQ(*rc, 0) << c.output();
  EXPECT_EQ(h.events()["events"].size(), 1U);
}


// `plumb check --npd` (and --slurm) on a node where the agent runs judge the agent's history too:
// the Xid that survived two reboots is the node's problem even though the kernel log the check
// reads now is clean; without a database nothing is added and nothing is created.
TEST(AgentE2E, SchedulerHealthCheckJudgesTheAgentsHistory) {
  AgentHost h("agent_npd");
  h.log(kXid79);
  for (int b = 1; b <= 3; ++b) {
    h.boot(b);
    ASSERT_EQ(h.cycle().exit_code, 1);
  }
  h.write("clean.log", "[   0.0] Linux version 6.1.0\n");
  auto npd = [&](const std::string& state) {
    return test::run_plumb({"check", "--npd", "--root", h.path() + "/root", "--kmsg", h.path() + "/clean.log", "--nvml-lib",
                            h.path() + "/root/no-nvml.so", "--only", "l3.platform,l3.gpu.xid", "--no-history", "--state-dir", state});
  };
  auto with = npd(h.state());
  EXPECT_EQ(with.exit_code, 1) << with.out << with.err;
  EXPECT_NE(with.out.find("l3.platform.recurring_fault"), std::string::npos) << with.out;
  EXPECT_EQ(with.err, "");
  auto without = npd(h.path() + "/no-agent");
  EXPECT_EQ(without.exit_code, 0) << without.out << without.err;
  EXPECT_FALSE(std::filesystem::exists(h.path() + "/no-agent"));
  // A state file that is not a database is said in one line; the check goes on without it.
  h.write("bad/plumb-agent.db", "not a database at all, just text that is long enough to be read");
  auto bad = npd(h.path() + "/bad");
  EXPECT_EQ(bad.exit_code, 0) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("was not judged"), std::string::npos) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

}  // namespace
}  // namespace plumb
