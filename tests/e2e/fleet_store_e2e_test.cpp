// End to end with a real PostgreSQL 15 (tests/pg_server.h): agents of four fixture nodes push to
// the fleet store and `plumb fleet report --store` names the odd node; the database down, restarted
// between and during pushes, and the agent killed with SIGKILL mid-cycle: every cycle still ends,
// and the next push catches up in order without duplicates.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "core/json.h"
#include "../fleet_roots.h"
#include "../pg_server.h"
#include "../scratch_root.h"
#include "../test_util.h"
#include "watch_spawn.h"

namespace plumb {
namespace {

// One fleet node: a fixture root with its host name and boot id, a kernel log and a state dir.
class StoreNode {
 public:
  StoreNode(const std::string& dir, const test::NodeVariant& v) : dir_(dir) {
    test::make_fleet_node(test::host_fixture("healthy"), dir_ + "/root", v);
    test::write_text(dir_ + "/root/proc/sys/kernel/random/boot_id", "00000001-0000-4000-8000-00000000000" + v.hostname.substr(v.hostname.size() - 1) + "\n");
    test::write_text(dir_ + "/kmsg.log", "[   0.0] Linux version 6.1.0\n");
  }
  void log(const std::string& line) const { std::ofstream(dir_ + "/kmsg.log", std::ios::app) << line; }
  // `only` empty: the whole check (the fleet report compares its facts).
  [[nodiscard]] std::vector<std::string> args(const std::string& url, const std::string& only = "l3.platform") const {
    std::vector<std::string> a{"agent", "--once", "--root", dir_ + "/root", "--kmsg", dir_ + "/kmsg.log", "--state-dir", dir_ + "/state",
                               "--no-bench", "--nvml-lib", dir_ + "/root/no-nvml.so", "--format", "json", "--store", url};
    if (!only.empty()) a.insert(a.end(), {"--only", only});
    return a;
  }
  [[nodiscard]] RunOutput cycle(const std::string& url, const std::string& only = "l3.platform") const {
    return test::run_plumb(args(url, only));
  }
  // A count from the local state database.
  [[nodiscard]] long long local(const char* sql) const {
    sqlite3* db = nullptr;
    long long n = -1;
    if (sqlite3_open_v2((dir_ + "/state/plumb-agent.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
      sqlite3_stmt* s = nullptr;
      if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) n = sqlite3_column_int64(s, 0);
      sqlite3_finalize(s);
    }
    sqlite3_close(db);
    return n;
  }

 private:
  std::string dir_;
};

std::string xid_line(int i) {
  char line[160];
  std::snprintf(line, sizeof line, "[ %4d.000] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n", i + 10);
  return line;
}

long long store_count(const test::PgServer& pg, const std::string& sql) {
  auto r = pg.sql(sql);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return std::atoll(r.out.c_str());
}

// The central copy equals the local one: as many rows, none twice.
void expect_caught_up(const test::PgServer& pg, const StoreNode& n, const std::string& host) {
  EXPECT_EQ(store_count(pg, "SELECT count(*) FROM plumb_results WHERE node = '" + host + "'"), n.local("SELECT count(*) FROM results"));
  EXPECT_EQ(store_count(pg, "SELECT count(DISTINCT local_id) FROM plumb_results WHERE node = '" + host + "'"), n.local("SELECT count(*) FROM results"));
  EXPECT_EQ(store_count(pg, "SELECT count(*) FROM plumb_events WHERE node = '" + host + "'"), n.local("SELECT count(*) FROM events"));
  EXPECT_EQ(store_count(pg, "SELECT count(DISTINCT pos) FROM plumb_events WHERE node = '" + host + "'"), n.local("SELECT count(*) FROM events"));
}

#define NEED_PG(pg) \
  if (!(pg).available()) GTEST_SKIP() << "no PostgreSQL 15 server for the test: " << (pg).why()

TEST(FleetStoreE2E, FourAgentsPushAndTheReportNamesTheOddNode) {
  test::PgServer pg;
  NEED_PG(pg);
  test::ScratchRoot dir("fleet_store_four");
  std::vector<test::NodeVariant> vs{{"gpu-node-01", "", "", 0}, {"gpu-node-02", "", "", 0}, {"gpu-node-03", "", "", 0},
                                    {"gpu-node-04", "5.15.0-91-generic", "powersave", 263979008}};
  std::filesystem::create_directories(dir.path() + "/snaps");
  for (const auto& v : vs) {
    StoreNode n(dir.path() + "/" + v.hostname, v);
    auto r = n.cycle(pg.url(), "");
    EXPECT_NE(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.find("fleet store"), std::string::npos) << r.err;
    test::write_text(dir.path() + "/snaps/" + v.hostname + ".json", r.out);  // the same report as a snapshot file
  }
  EXPECT_EQ(store_count(pg, "SELECT count(*) FROM plumb_nodes"), 4);
  EXPECT_EQ(store_count(pg, "SELECT count(*) FROM plumb_results"), 4);
  auto r = test::run_plumb({"fleet", "report", "--store", pg.url(), "--format", "json"});
  EXPECT_NE(r.exit_code, 2) << r.err;
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out.substr(0, 500) << r.err;
  const json& f = j["facts"]["fleet"];
  ASSERT_EQ(f["nodes"].size(), 4U);
  ASSERT_EQ(f["drain"].size(), 1U) << f["drain"].dump();
  EXPECT_EQ(f["drain"][0]["host"], "gpu-node-04");
  bool repeat = false;
  for (const auto& x : j["findings"]) repeat = repeat || x["id"] == "l3.fleet.repeat_offender";
  EXPECT_TRUE(repeat) << "the rules over time judge a store's report";
  // The verdicts of the same snapshots as files: the same failing and warning findings, the same
  // nodes to drain (the rules over time only judge a store).
  auto files = test::run_plumb({"fleet", "report", dir.path() + "/snaps", "--format", "json"});
  json jf = json::parse(files.out, nullptr, false);
  ASSERT_FALSE(jf.is_discarded()) << files.err;
  auto verdicts = [](const json& doc) {
    std::set<std::string> out;
    for (const auto& x : doc["findings"]) {
      const std::string id = x["id"];
      if (id == "l3.fleet.repeat_offender" || id == "l3.fleet.events_rising" || id == "l2.fleet.change_regression") continue;
      if (x["status"] == "fail" || x["status"] == "warn") out.insert(id + " " + x["status"].get<std::string>() + " " + x["subject"].get<std::string>());
    }
    return out;
  };
  EXPECT_EQ(verdicts(j), verdicts(jf));
  EXPECT_FALSE(verdicts(j).empty());
  EXPECT_EQ(f["drain"], jf["facts"]["fleet"]["drain"]);
  EXPECT_EQ(files.exit_code, r.exit_code);
  // The same verdict in the other formats and in Chinese.
  EXPECT_NE(test::run_plumb({"fleet", "report", "--store", pg.url(), "--format", "md"}).out.find("gpu-node-04"), std::string::npos);
  EXPECT_EQ(test::run_plumb({"fleet", "report", "--store", pg.url(), "--format", "html", "--lang", "zh"}).exit_code, r.exit_code);
}

TEST(FleetStoreE2E, DatabaseDownCycleSucceedsAndTheNextCatchesUp) {
  test::PgServer pg;
  NEED_PG(pg);
  test::ScratchRoot dir("fleet_store_down");
  StoreNode n(dir.path() + "/n", {"gpu-node-01", "", "", 0});
  const std::string url = "postgresql://plumb:s3cret-pw@/postgres?host=" + pg.url().substr(pg.url().find("host=") + 5);
  n.log(xid_line(1));
  ASSERT_EQ(n.cycle(url).exit_code, 0);
  ASSERT_TRUE(pg.stop());
  for (int i = 2; i <= 3; ++i) {
    n.log(xid_line(i));
    auto r = n.cycle(url);
    EXPECT_EQ(r.exit_code, 0) << r.err;  // the push does not decide the exit code
    EXPECT_NE(r.err.find("fleet store push failed"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("pending"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.find("s3cret-pw"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("plumb:***@"), std::string::npos) << r.err;
  }
  ASSERT_TRUE(pg.start());
  auto r = n.cycle(url);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  expect_caught_up(pg, n, "gpu-node-01");
  EXPECT_EQ(store_count(pg, "SELECT count(*) FROM plumb_results"), 4);
  EXPECT_EQ(store_count(pg, "SELECT count(*) FROM plumb_events"), 3);
  // In order: local ids rise with time.
  EXPECT_EQ(pg.sql("SELECT string_agg(local_id::text, ',' ORDER BY time, local_id) FROM plumb_results").out, "1,2,3,4\n");
  // A report of the store also works with a password in the URL, and never shows it.
  auto rep = test::run_plumb({"fleet", "report", "--store", url + "&connect_timeout=3", "--format", "json"});
  EXPECT_EQ(rep.out.find("s3cret-pw"), std::string::npos);
  EXPECT_EQ(rep.err.find("s3cret-pw"), std::string::npos);
}

TEST(FleetStoreE2E, RestartsBetweenAndDuringPushesLeaveNoDuplicate) {
  test::PgServer pg;
  NEED_PG(pg);
  test::ScratchRoot dir("fleet_store_restart");
  StoreNode n(dir.path() + "/n", {"gpu-node-01", "", "", 0});
  std::atomic<bool> done{false};
  std::thread restarts([&] {
    while (!done) {
      pg.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
      pg.start();
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  });
  int failed = 0, pushed = 0;
  for (int i = 0; i < 12; ++i) {
    std::string lines;
    for (int k = 0; k < 50; ++k) lines += xid_line(i * 100 + k);
    n.log(lines);
    auto r = n.cycle(pg.url());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    (r.err.find("fleet store push failed") != std::string::npos ? failed : pushed) += 1;
  }
  done = true;
  restarts.join();
  pg.start();  // up (again) for the catch-up
  auto r = n.cycle(pg.url());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  expect_caught_up(pg, n, "gpu-node-01");
  EXPECT_EQ(n.local("SELECT count(*) FROM events"), 600);
  EXPECT_GT(failed, 0) << "no cycle met the server down";
  EXPECT_GT(pushed, 0) << "no cycle met the server up";
}

TEST(FleetStoreE2E, KillNineMidCycleLosesNothingAfterTheNextCycle) {
  test::PgServer pg;
  NEED_PG(pg);
  test::ScratchRoot dir("fleet_store_kill9");
  StoreNode n(dir.path() + "/n", {"gpu-node-01", "", "", 0});
  std::mt19937 rng(20261207);
  std::uniform_int_distribution<int> delay_ms(0, 400);
  int killed = 0;
  for (int round = 0; round < 10; ++round) {
    std::string lines;
    for (int k = 0; k < 100; ++k) lines += xid_line(round * 1000 + k);
    n.log(lines);
    test::Child c(n.args(pg.url()));
    ASSERT_TRUE(c.started());
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    c.signal(SIGKILL);
    auto rc = c.wait(std::chrono::seconds(30));
    ASSERT_TRUE(rc.has_value());
    if (*rc == 128 + SIGKILL) ++killed;
  }
  EXPECT_GT(killed, 0) << "no kill landed inside a cycle";
  auto r = n.cycle(pg.url());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  expect_caught_up(pg, n, "gpu-node-01");
  EXPECT_EQ(n.local("SELECT count(*) FROM events"), 1000);
}

TEST(FleetStoreE2E, BadStoreIsOneLineAndExitTwo) {
  test::ScratchRoot dir("fleet_store_bad");
  auto r = test::run_plumb({"fleet", "report", "--store", "postgresql://u:pw-here@/db?host=/nonexistent-socket-dir&connect_timeout=2"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.find("pw-here"), std::string::npos) << r.err;
  EXPECT_EQ(test::run_plumb({"fleet", "report"}).exit_code, 2);
}

}  // namespace
}  // namespace plumb
