// The agent's state database: events and cursor round trip, INSERT OR IGNORE on a kernel log read
// again, schema migration and a newer schema refused, a corrupt file moved aside, acknowledgements,
// retention, and a lock held by another connection answered with an error instead of a hang.
#include <gtest/gtest.h>

#include <algorithm>

#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "store/events.h"
#include "../../scratch_root.h"

namespace plumb {
namespace {

const char* kBootA = "aaaaaaaa-0000-0000-0000-000000000001";
const char* kBootB = "bbbbbbbb-0000-0000-0000-000000000002";

NodeEvent xid_event(const std::string& time, const std::string& subject = "0000:3b:00") {
  NodeEvent e;
  e.time = time;
  e.kind = "xid";
  e.subject = subject;
  e.code = "79";
  e.evidence = "NVRM: Xid (PCI:" + subject + "): 79, pid=1, GPU has fallen off the bus.";
  e.finding = "l3.gpu.xid";
  return e;
}

std::unique_ptr<EventStore> open_ok(const std::string& dir, EventStoreNotice* notice = nullptr) {
  auto s = EventStore::open(dir, notice);
  EXPECT_TRUE(s) << (s ? "" : s.error().message);
  return s ? std::move(s.value()) : nullptr;
}

TEST(StoreEvents, RoundTripWithCursorAndResults) {
  test::ScratchRoot dir("store_events_round_trip");
  auto s = open_ok(dir.path() + "/state");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->path(), dir.path() + "/state/plumb-agent.db");
  EXPECT_EQ(*s->schema_version(), kEventSchemaVersion);
  auto c0 = s->cursor(kBootA, "/dev/kmsg");
  ASSERT_TRUE(c0);
  EXPECT_EQ(*c0, KmsgCursor{});
  KmsgCursor next{7, 120, 0};
  auto added = s->add_events(kBootA, "/dev/kmsg", {{0, xid_event("2026-12-01T00:00:00Z")}, {60, xid_event("2026-12-01T00:00:01Z", "0000:86:00")}}, next);
  ASSERT_TRUE(added) << added.error().message;
  EXPECT_EQ(*added, 2);
  EXPECT_EQ(*s->cursor(kBootA, "/dev/kmsg"), next);
  EXPECT_EQ(*s->cursor(kBootB, "/dev/kmsg"), KmsgCursor{});  // a cursor per boot
  auto ev = s->events();
  ASSERT_TRUE(ev);
  ASSERT_EQ(ev->size(), 2U);
  EXPECT_EQ((*ev)[0].subject, "0000:86:00");  // newest first
  EXPECT_EQ((*ev)[0].boot_id, kBootA);
  EXPECT_EQ((*ev)[0].source, "/dev/kmsg");
  EXPECT_EQ((*ev)[1].finding, "l3.gpu.xid");
  EXPECT_FALSE((*ev)[1].acked);
  EXPECT_EQ(s->events("", "oom_kill")->size(), 0U);
  EXPECT_EQ(s->events("2026-12-01T00:00:01Z")->size(), 1U);
  CycleResult r{"2026-12-01T00:01:00Z", kBootA, 1, 2, 0, R"([{"id":"l3.gpu.xid","status":"fail","subject":"x"}])"};
  ASSERT_TRUE(s->add_result(r));
  s.reset();
  auto again = open_ok(dir.path() + "/state");
  ASSERT_TRUE(again);
  auto rs = again->results();
  ASSERT_TRUE(rs);
  ASSERT_EQ(rs->size(), 1U);
  EXPECT_EQ((*rs)[0].exit_code, 1);
  EXPECT_EQ((*rs)[0].failures, 2);
  EXPECT_EQ((*rs)[0].findings, r.findings);
  EXPECT_EQ(again->events()->size(), 2U);
}

TEST(StoreEvents, SameLinesAgainAreIgnored) {
  test::ScratchRoot dir("store_events_dedup");
  auto s = open_ok(dir.path());
  ASSERT_TRUE(s);
  std::vector<std::pair<std::uint64_t, NodeEvent>> evs{{0, xid_event("2026-12-01T00:00:00Z")}};
  EXPECT_EQ(*s->add_events(kBootA, "k.log", evs, {1, 80, 0}), 1);
  EXPECT_EQ(*s->add_events(kBootA, "k.log", evs, {1, 80, 0}), 0);  // same boot, source, position
  EXPECT_EQ(*s->add_events(kBootB, "k.log", evs, {1, 80, 0}), 1);  // another boot: another event
  EXPECT_EQ(s->events()->size(), 2U);
}

TEST(StoreEvents, KernelLogReadAgainFromItsStartStoresEachLineOnce) {
  test::ScratchRoot dir("store_events_kmsg_again");
  dir.write("kmsg.log", "[1.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n[2.0] usb 1-1: new device\n");
  auto s = open_ok(dir.path() + "/state");
  ASSERT_TRUE(s);
  HostRoot root("/");
  const std::string file = dir.path() + "/kmsg.log";
  for (int round = 0; round < 2; ++round) {
    auto read = read_kmsg_since(root, file, KmsgCursor{});  // the cursor lost: everything again
    ASSERT_TRUE(read) << read.error().message;
    std::vector<std::pair<std::uint64_t, NodeEvent>> evs;
    for (const auto& l : read->lines) {
      if (auto k = parse_kernel_event(l.message)) {
        NodeEvent e = xid_event("2026-12-01T00:00:00Z");
        e.evidence = k->evidence;
        evs.emplace_back(l.pos, e);
      }
    }
    ASSERT_EQ(evs.size(), 1U);
    EXPECT_EQ(*s->add_events(kBootA, file, evs, read->next), round == 0 ? 1 : 0);
  }
  EXPECT_EQ(s->events()->size(), 1U);
}

TEST(StoreEvents, MigratesAnUnversionedFileAndRefusesANewerOne) {
  test::ScratchRoot dir("store_events_migrate");
  const std::string db = dir.path() + "/plumb-agent.db";
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES('kept');", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  {
    auto s = open_ok(dir.path());
    ASSERT_TRUE(s);
    EXPECT_EQ(*s->schema_version(), kEventSchemaVersion);
    EXPECT_EQ(*s->add_events(kBootA, "k", {{0, xid_event("2026-12-01T00:00:00Z")}}, {}), 1);
  }
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto newer = EventStore::open(dir.path());
  ASSERT_FALSE(newer);
  EXPECT_NE(newer.error().message.find("newer"), std::string::npos) << newer.error().message;
}

TEST(StoreEvents, CorruptFileIsMovedAsideAndAFreshOneCreated) {
  test::ScratchRoot dir("store_events_corrupt");
  dir.write("plumb-agent.db", std::string(8192, 'x'));
  EventStoreNotice notice;
  auto s = open_ok(dir.path(), &notice);
  ASSERT_TRUE(s);
  ASSERT_FALSE(notice.moved_to.empty());
  EXPECT_EQ(notice.moved_to.rfind(dir.path() + "/plumb-agent.db.corrupt-", 0), 0U) << notice.moved_to;
  EXPECT_TRUE(std::filesystem::exists(notice.moved_to));
  EXPECT_FALSE(notice.reason.empty());
  EXPECT_EQ(*s->add_events(kBootA, "k", {{0, xid_event("2026-12-01T00:00:00Z")}}, {}), 1);
  EXPECT_EQ(s->events()->size(), 1U);
}

TEST(StoreEvents, AcknowledgementsAndRetention) {
  test::ScratchRoot dir("store_events_ack");
  auto s = open_ok(dir.path());
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->add_events(kBootA, "k", {{0, xid_event("2026-10-01T00:00:00Z")}, {80, xid_event("2026-12-01T00:00:00Z")}}, {}));
  auto ev = s->events();
  ASSERT_EQ(ev->size(), 2U);
  std::int64_t old_id = (*ev)[1].id, new_id = (*ev)[0].id;
  EXPECT_TRUE(*s->ack(new_id, "2026-12-02T00:00:00Z", "GPU replaced"));
  EXPECT_FALSE(*s->ack(9999, "2026-12-02T00:00:00Z", "no such event"));
  EXPECT_TRUE(s->events()->front().acked);
  ASSERT_TRUE(s->add_result({"2026-10-01T00:00:00Z", kBootA, 0, 0, 0, "[]"}));
  auto removed = s->prune("2026-11-01T00:00:00Z");
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_EQ(*removed, 2);  // the old event and the old result
  ev = s->events();
  ASSERT_EQ(ev->size(), 1U);
  EXPECT_EQ((*ev)[0].id, new_id);
  EXPECT_NE((*ev)[0].id, old_id);
  EXPECT_TRUE((*ev)[0].acked);
}

TEST(StoreEvents, LockHeldByAnotherConnectionIsAnErrorNotAHangAndReadersGoOn) {
  test::ScratchRoot dir("store_events_locked");
  {
    auto first = open_ok(dir.path());
    ASSERT_TRUE(first);
    ASSERT_TRUE(first->add_events(kBootA, "k", {{0, xid_event("2026-12-01T00:00:00Z")}}, {}));
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path() + "/plumb-agent.db").c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "BEGIN EXCLUSIVE; INSERT INTO results(time, boot_id, exit_code, failures, warnings, findings) "
                              "VALUES('t', 'b', 0, 0, 0, '[]');", nullptr, nullptr, nullptr), SQLITE_OK);
  auto s = EventStore::open(dir.path());  // a reader opens while a writer holds the lock
  ASSERT_TRUE(s) << s.error().message;
  auto ev = (*s)->events();
  ASSERT_TRUE(ev) << ev.error().message;
  EXPECT_EQ(ev->size(), 1U);
  auto start = std::chrono::steady_clock::now();
  auto w = (*s)->add_events(kBootA, "k", {{80, xid_event("2026-12-01T00:00:01Z")}}, {});
  auto waited = std::chrono::steady_clock::now() - start;
  sqlite3_exec(raw, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message.find("locked"), std::string::npos) << w.error().message;
  EXPECT_GE(waited, std::chrono::milliseconds(kEventBusyTimeoutMs - 500));
  EXPECT_LT(waited, std::chrono::seconds(10));
  EXPECT_EQ(*(*s)->add_events(kBootA, "k", {{80, xid_event("2026-12-01T00:00:01Z")}}, {}), 1);  // the lock gone
}

TEST(StoreEvents, UncreatableStateDirectoryIsAnError) {
  auto s = EventStore::open("/proc/plumb-state-test/state");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("/proc/plumb-state-test"), std::string::npos) << s.error().message;
}


TEST(StoreEvents, VersionOneFileGainsTheCounterTableAndKeepsItsEvents) {
  test::ScratchRoot dir("store_events_v1");
  const std::string db = dir.path() + "/plumb-agent.db";
  {
    auto s = open_ok(dir.path());
    ASSERT_TRUE(s);
    EXPECT_EQ(*s->add_events(kBootA, "k", {{0, xid_event("2026-12-01T00:00:00Z")}}, {}), 1);
  }
  // What a version-1 plumb left: no samples table, user_version 1.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "DROP TABLE samples; DROP INDEX results_time; PRAGMA user_version = 1", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto s = open_ok(dir.path());
  ASSERT_TRUE(s);
  EXPECT_EQ(*s->schema_version(), 2);
  EXPECT_EQ(s->events()->size(), 1U);
  EXPECT_EQ(*s->add_samples(kBootA, {{"2026-12-01T00:00:00Z", "ib.link_downed", "mlx5_0 port 1", 0, "/sys/x"}}), 1);
}

TEST(StoreEvents, CounterReadingsAreKeptWhenTheyChange) {
  test::ScratchRoot dir("store_events_samples");
  auto s = open_ok(dir.path());
  ASSERT_TRUE(s);
  auto at = [](const std::string& t, std::int64_t v) { return CounterSample{t, "ib.symbol_error", "mlx5_0 port 1", v, "/sys/x"}; };
  EXPECT_EQ(*s->add_samples(kBootA, {at("2026-12-01T00:00:00Z", 3)}), 1);
  EXPECT_EQ(*s->add_samples(kBootA, {at("2026-12-01T00:10:00Z", 3)}), 0);  // unchanged
  EXPECT_EQ(*s->add_samples(kBootA, {at("2026-12-01T00:20:00Z", 9)}), 1);
  EXPECT_EQ(*s->add_samples(kBootB, {at("2026-12-01T00:30:00Z", 9)}), 1);  // a new boot keeps its first
  auto a = s->samples(kBootA);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->size(), 2U);
  EXPECT_EQ((*a)[1].value, 9);
  EXPECT_EQ((*a)[1].time, "2026-12-01T00:20:00Z");
  EXPECT_EQ(*s->prune("2026-12-01T00:25:00Z"), 2);
  EXPECT_TRUE(s->samples(kBootA)->empty());
}

TEST(StoreEvents, RetentionBySizeRemovesTheOldestRowsFirst) {
  test::ScratchRoot dir("store_events_size");
  auto s = open_ok(dir.path());
  ASSERT_TRUE(s);
  std::vector<std::pair<std::uint64_t, NodeEvent>> evs;
  for (std::uint64_t i = 0; i < 4000; ++i) {
    NodeEvent e = xid_event("2026-12-01T00:00:00Z");
    e.evidence = std::string(200, 'x') + std::to_string(i);
    evs.emplace_back(i, e);
  }
  ASSERT_EQ(*s->add_events(kBootA, "k", evs, {}), 4000);
  auto before = s->used_bytes();
  ASSERT_TRUE(before);
  ASSERT_GT(*before, 800000);
  auto removed = s->shrink_to(256 * 1024);
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_GT(*removed, 0);
  EXPECT_LE(*s->used_bytes(), 256 * 1024);
  auto left = s->events();
  ASSERT_TRUE(left);
  ASSERT_FALSE(left->empty());
  // The newest survive: the last event written is still there.
  EXPECT_NE(std::find_if(left->begin(), left->end(), [](const NodeEvent& e) { return e.evidence.find("x3999") != std::string::npos; }), left->end());
  EXPECT_EQ(*s->shrink_to(256 * 1024), 0);  // already within the limit: nothing goes
}

}  // namespace
}  // namespace plumb
