// The fleet store client: passwords masked in every conninfo form libpq accepts, the facts columns
// of a cycle, a server that is not there answered within the connect deadline, and the rules over
// time against a real PostgreSQL history (tests/pg_server.h): a repeat offender, rising events and
// a driver change with a benchmark regression.
#include <gtest/gtest.h>

#include <chrono>

#include "core/registry.h"
#include "core/tables.h"
#include "store/fleet_store.h"
#include "../../pg_server.h"
#include "../../scratch_root.h"

namespace plumb {
namespace {

TEST(FleetStore, PasswordsAreMasked) {
  EXPECT_EQ(mask_conninfo("postgresql://plumb:hunter2@db.example:5432/fleet"), "postgresql://plumb:***@db.example:5432/fleet");
  EXPECT_EQ(mask_conninfo("postgres://u:p%40ss@h/db?sslmode=require"), "postgres://u:***@h/db?sslmode=require");
  EXPECT_EQ(mask_conninfo("postgresql://h/db?user=u&password=hunter2&sslmode=require"), "postgresql://h/db?user=u&password=***&sslmode=require");
  EXPECT_EQ(mask_conninfo("host=h dbname=fleet password=hunter2 user=u"), "host=h dbname=fleet password=*** user=u");
  EXPECT_EQ(mask_conninfo("host=h password = 'hu nter\\'2' user=u"), "host=h password = *** user=u");
  EXPECT_EQ(mask_conninfo("postgresql://plumb@/postgres?host=/tmp/s"), "postgresql://plumb@/postgres?host=/tmp/s");
}

TEST(FleetStore, CycleColumnsComeFromTheFacts) {
  Facts f;
  f.meta.hostname = "gpu-node-01";
  f.host.os.kernel = Fact<std::string>::of("6.1.0-18-amd64", "/proc/sys/kernel/osrelease");
  BenchResult b;
  BenchMetric m;
  m.name = "membw.copy.all";
  m.samples = 3;
  m.median = 12.5;
  b.metrics.push_back(m);
  f.bench.results.push_back(b);
  FleetCycle c = fleet_cycle_of(f);
  EXPECT_EQ(c.node, "gpu-node-01");
  EXPECT_EQ(c.kernel, "6.1.0-18-amd64");
  EXPECT_EQ(c.driver, "");
  EXPECT_EQ(c.bench, R"({"membw.copy.all":[12.5,true]})");
}

TEST(FleetStore, AbsentServerIsAnErrorWithinTheDeadline) {
  if (!load_libpq()) GTEST_SKIP() << load_libpq().error().message;
  auto t0 = std::chrono::steady_clock::now();
  auto s = FleetStore::connect("postgresql://u:hunter2@/db?host=/nonexistent-plumb-socket-dir");
  ASSERT_FALSE(s);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(kFleetStoreConnectTimeoutS + 2));
  EXPECT_NE(s.error().message.find("u:***@"), std::string::npos) << s.error().message;
  EXPECT_EQ(s.error().message.find("hunter2"), std::string::npos) << s.error().message;
  EXPECT_EQ(s.error().message.find('\n'), std::string::npos) << s.error().message;
}

TEST(FleetStore, HistoryOfARealDatabase) {
  if (!load_libpq()) GTEST_SKIP() << load_libpq().error().message;
  test::PgServer pg;
  if (!pg.available()) GTEST_SKIP() << "no PostgreSQL 15 server for the test: " << pg.why();
  auto store = FleetStore::connect(pg.url());
  ASSERT_TRUE(store) << store.error().message;
  // n1 fails four times this week; n2 logs more events this week than last; n3 moved to driver 550
  // and its copy bandwidth fell 30 % while n4 and n5 (no change) held steady.
  auto r = pg.sql(R"SQL(
INSERT INTO plumb_results(node, local_id, time, boot_id, exit_code, failures, warnings, findings, kernel, driver, bench)
SELECT 'n1', g, now() - g * interval '1 day', 'b', 1, 1, 0, '[]', 'k', 'd', NULL FROM generate_series(1, 4) g;
INSERT INTO plumb_events(node, time, boot_id, source, pos, kind, subject, code, evidence, finding)
SELECT 'n2', now() - (CASE WHEN g <= 5 THEN 1 ELSE 9 END) * interval '1 day', 'b', 'k', g, 'xid', 's', '79', 'e', 'l3.gpu.xid'
FROM generate_series(1, 6) g;
INSERT INTO plumb_results(node, local_id, time, boot_id, exit_code, failures, warnings, findings, kernel, driver, bench)
VALUES ('n3', 1, now() - interval '6 days', 'b', 0, 0, 0, '[]', 'k', '535.1', '{"membw.copy.all": [100, true]}'),
       ('n3', 2, now() - interval '1 day', 'b', 0, 0, 0, '[]', 'k', '550.2', '{"membw.copy.all": [70, true]}'),
       ('n4', 1, now() - interval '6 days', 'b', 0, 0, 0, '[]', 'k', '535.1', '{"membw.copy.all": [100, true]}'),
       ('n4', 2, now() - interval '1 day', 'b', 0, 0, 0, '[]', 'k', '535.1', '{"membw.copy.all": [99, true]}'),
       ('n5', 1, now() - interval '6 days', 'b', 0, 0, 0, '[]', 'k', '535.1', '{"membw.copy.all": [100, true]}'),
       ('n5', 2, now() - interval '1 day', 'b', 0, 0, 0, '[]', 'k', '535.1', '{"membw.copy.all": [101, true]}');
)SQL");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto h = (*store)->history(7, 7, 7);
  ASSERT_TRUE(h) << h.error().message;
  std::map<std::string, FleetHistoryNode> by;
  for (const auto& n : h->nodes) by[n.host] = n;
  EXPECT_EQ(by["n1"].failed, 4);
  EXPECT_EQ(by["n2"].events_recent, 5);
  EXPECT_EQ(by["n2"].events_before, 1);
  EXPECT_EQ(by["n3"].change, "driver 535.1 -> 550.2");
  EXPECT_EQ(by["n3"].metric, "membw.copy.all");
  EXPECT_NEAR(by["n3"].change_percent, -30, 0.01);
  EXPECT_EQ(by["n3"].others, 2);
  EXPECT_NEAR(by["n3"].others_percent, 0, 0.01);
  EXPECT_EQ(by["n4"].change, "");
  // The rules judge it with the default thresholds.
  Facts f;
  f.fleet.collected = true;
  f.fleet.history = *h;
  Selection sel;
  sel.only = {"l3.fleet.repeat_offender", "l3.fleet.events_rising", "l2.fleet.change_regression"};
  std::map<std::string, std::string> verdict;
  for (const auto& x : judge(f, Thresholds{}, sel)) verdict[x.id + " " + x.subject] = status_name(x.status);
  EXPECT_EQ(verdict["l3.fleet.repeat_offender n1"], "fail");
  EXPECT_EQ(verdict["l3.fleet.events_rising n2"], "warn");
  EXPECT_EQ(verdict["l2.fleet.change_regression n3"], "fail");
  EXPECT_EQ(verdict.count("l2.fleet.change_regression n4"), 0U);
}

}  // namespace
}  // namespace plumb
