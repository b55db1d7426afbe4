// Faults over time: the same hardware fault in one boot passes, in two boots warns (reset or
// reboot), after history.reboots_to_inspect reboots fails (hardware inspection); acknowledged
// events and application-caused Xids do not count; nothing is said when the agent did not run.
#include <gtest/gtest.h>

#include "core/catalog.h"
#include "core/registry.h"
#include "rules/history.h"
#include "core/thresholds.h"

namespace plumb {
namespace {

NodeEvent ev(std::int64_t id, const std::string& boot, const std::string& code = "79", bool acked = false) {
  NodeEvent e;
  e.id = id;
  e.time = "2026-12-0" + std::to_string(id) + "T00:00:00Z";
  e.boot_id = boot;
  e.source = "/dev/kmsg";
  e.kind = "xid";
  e.subject = "0000:3b:00";
  e.code = code;
  e.evidence = "NVRM: Xid (PCI:0000:3b:00): " + code + ", pid=1";
  e.finding = "l3.gpu.xid";
  e.acked = acked;
  return e;
}

std::vector<Finding> judge_history(const std::vector<NodeEvent>& events, const Thresholds& th = {}) {
  Facts f;
  f.events.collected = true;
  f.events.state_db = "/var/lib/plumb/plumb-agent.db";
  f.events.events = events;
  Selection sel;
  sel.only = {"l3.platform.recurring_fault"};
  return judge(f, th, sel);
}

TEST(HistoryRules, NothingWithoutTheAgent) {
  Selection sel;
  sel.only = {"l3.platform.recurring_fault"};
  EXPECT_TRUE(judge(Facts{}, Thresholds{}, sel).empty());
}

TEST(HistoryRules, OneBootPasses) {
  auto out = judge_history({ev(1, "boot-a"), ev(2, "boot-a")});
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].status, Status::pass);
  EXPECT_EQ(out[0].args.at("boots"), "1");
}

TEST(HistoryRules, TwoBootsResetThreeBootsInspect) {
  auto two = judge_history({ev(1, "boot-a"), ev(2, "boot-b")});
  ASSERT_EQ(two.size(), 1U);
  EXPECT_EQ(two[0].status, Status::warn);
  EXPECT_EQ(two[0].variant, "reset");
  EXPECT_EQ(two[0].subject, "0000:3b:00 xid 79");
  auto three = judge_history({ev(1, "boot-a"), ev(2, "boot-b"), ev(3, "boot-c")});
  ASSERT_EQ(three.size(), 1U);
  EXPECT_EQ(three[0].status, Status::fail);
  EXPECT_EQ(three[0].variant, "inspect");
  EXPECT_EQ(three[0].args.at("boots"), "3");
  EXPECT_EQ(three[0].args.at("reboots"), "2");
  EXPECT_NE(three[0].args.at("boot_list").find("boot-a (2026-12-01T00:00:00Z)"), std::string::npos);
  EXPECT_EQ(three[0].evidence.size(), 3U);
  EXPECT_NE(three[0].threshold.find("history.reboots_to_inspect"), std::string::npos);
  EXPECT_NE(finding_message(three[0], Lang::en).find("hardware inspection"), std::string::npos);
  EXPECT_NE(finding_message(three[0], Lang::zh).find("硬件检修"), std::string::npos);
  EXPECT_NE(finding_fix(three[0], Lang::en).find("hardware inspection"), std::string::npos);
}

TEST(HistoryRules, ThresholdComesFromTheConfig) {
  Thresholds th;
  th.set("history.reboots_to_inspect", 3);
  auto three = judge_history({ev(1, "boot-a"), ev(2, "boot-b"), ev(3, "boot-c")}, th);
  ASSERT_EQ(three.size(), 1U);
  EXPECT_EQ(three[0].status, Status::warn);
}

TEST(HistoryRules, AcknowledgedEventsDoNotCount) {
  auto out = judge_history({ev(1, "boot-a", "79", true), ev(2, "boot-b"), ev(3, "boot-c")});
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].status, Status::warn);
  EXPECT_EQ(out[0].args.at("boots"), "2");
}

TEST(HistoryRules, ApplicationXidsAndOtherFaultsAreApart) {
  // Xid 13 is an application's bad address: it says nothing about the GPU however often it recurs.
  auto app = judge_history({ev(1, "boot-a", "13"), ev(2, "boot-b", "13"), ev(3, "boot-c", "13")});
  ASSERT_EQ(app.size(), 1U);
  EXPECT_EQ(app[0].status, Status::pass);
  // Two different codes on one GPU are two faults, each in one boot.
  auto mixed = judge_history({ev(1, "boot-a", "79"), ev(2, "boot-b", "48")});
  ASSERT_EQ(mixed.size(), 1U);
  EXPECT_EQ(mixed[0].status, Status::pass);
}


// Counters over time: one reading says nothing; a hard counter fails at any rise within the window;
// a correctable one warns and fails at history.correctable_rise_fail; a reset is no rise.
CounterSample cs(const std::string& time, const std::string& counter, std::int64_t v) {
  return {time, counter, "mlx5_0 port 1", v, "/sys/class/infiniband/mlx5_0/ports/1/counters/" + counter.substr(3)};
}

std::vector<Finding> judge_counters(const std::vector<CounterSample>& samples, const std::string& now = "2026-12-07T12:00:00Z") {
  Facts f;
  f.events.collected = true;
  f.events.now = now;
  f.events.samples = samples;
  Selection sel;
  sel.only = {"l3.platform.rising_counter"};
  return judge(f, Thresholds{}, sel);
}

TEST(HistoryRules, OneReadingOfACounterPasses) {
  auto out = judge_counters({cs("2026-12-07T11:50:00Z", "ib.symbol_error", 5000)});
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].status, Status::pass);
  EXPECT_EQ(out[0].args.at("counters"), "1");
}

TEST(HistoryRules, AHardCounterFailsAtAnyRiseASoftOneByHowMuch) {
  auto hard = judge_counters({cs("2026-12-07T11:30:00Z", "ib.link_downed", 2), cs("2026-12-07T11:50:00Z", "ib.link_downed", 3)});
  ASSERT_EQ(hard.size(), 1U);
  EXPECT_EQ(hard[0].status, Status::fail);
  EXPECT_EQ(hard[0].variant, "hard");
  EXPECT_EQ(hard[0].args.at("rise"), "1");
  EXPECT_EQ(hard[0].args.at("minutes"), "20");
  EXPECT_EQ(hard[0].subject, "mlx5_0 port 1 ib.link_downed");
  EXPECT_EQ(hard[0].evidence.size(), 2U);
  EXPECT_EQ(finding_verify(hard[0]), "cat /sys/class/infiniband/mlx5_0/ports/1/counters/link_downed");
  auto few = judge_counters({cs("2026-12-07T11:30:00Z", "ib.symbol_error", 10), cs("2026-12-07T11:50:00Z", "ib.symbol_error", 50)});
  ASSERT_EQ(few.size(), 1U);
  EXPECT_EQ(few[0].status, Status::warn);
  auto many = judge_counters({cs("2026-12-07T11:30:00Z", "ib.symbol_error", 10), cs("2026-12-07T11:50:00Z", "ib.symbol_error", 110)});
  ASSERT_EQ(many.size(), 1U);
  EXPECT_EQ(many[0].status, Status::fail);
  EXPECT_NE(finding_message(many[0], Lang::en).find("rose by 100 in 20 min"), std::string::npos);
  EXPECT_NE(finding_message(many[0], Lang::zh).find("增加了 100"), std::string::npos);
}

TEST(HistoryRules, TheWindowStartsAtTheLastReadingBeforeIt) {
  // 09:00 -> 0, 10:30 -> 200, 11:50 -> 210: within the last hour the counter rose by 10, not 210.
  auto out = judge_counters({cs("2026-12-07T09:00:00Z", "ib.symbol_error", 0), cs("2026-12-07T10:30:00Z", "ib.symbol_error", 200),
                             cs("2026-12-07T11:50:00Z", "ib.symbol_error", 210)});
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].status, Status::warn);
  EXPECT_EQ(out[0].args.at("rise"), "10");
  // A counter that went down was reset (a driver reload): no rise.
  auto reset = judge_counters({cs("2026-12-07T11:30:00Z", "ib.link_downed", 7), cs("2026-12-07T11:50:00Z", "ib.link_downed", 0)});
  ASSERT_EQ(reset.size(), 1U);
  EXPECT_EQ(reset[0].status, Status::pass);
}

// Link flaps: downs of one link within the window; two warn, history.flaps_fail fail; old and
// acknowledged downs do not count.
NodeEvent down(std::int64_t id, const std::string& time, bool acked = false) {
  NodeEvent e;
  e.id = id;
  e.time = time;
  e.boot_id = "boot-a";
  e.source = "/dev/kmsg";
  e.kind = "ib_link";
  e.subject = "0000:3b:00.0 ibp59s0";
  e.code = "down";
  e.evidence = "mlx5_core 0000:3b:00.0 ibp59s0: Link down";
  e.acked = acked;
  return e;
}

std::vector<Finding> judge_flaps(const std::vector<NodeEvent>& events) {
  Facts f;
  f.events.collected = true;
  f.events.now = "2026-12-07T12:00:00Z";
  f.events.events = events;
  Selection sel;
  sel.only = {"l3.platform.link_flaps"};
  return judge(f, Thresholds{}, sel);
}

TEST(HistoryRules, ALinkThatFlapsInTheWindowFails) {
  auto three = judge_flaps({down(1, "2026-12-07T11:10:00Z"), down(2, "2026-12-07T11:20:00Z"), down(3, "2026-12-07T11:30:00Z")});
  ASSERT_EQ(three.size(), 1U);
  EXPECT_EQ(three[0].status, Status::fail);
  EXPECT_EQ(three[0].args.at("downs"), "3");
  EXPECT_EQ(three[0].evidence.size(), 3U);
  auto two = judge_flaps({down(1, "2026-12-07T09:00:00Z"), down(2, "2026-12-07T11:20:00Z"), down(3, "2026-12-07T11:30:00Z")});
  ASSERT_EQ(two.size(), 1U);
  EXPECT_EQ(two[0].status, Status::warn);
  auto acked = judge_flaps({down(1, "2026-12-07T11:10:00Z", true), down(2, "2026-12-07T11:20:00Z"), down(3, "2026-12-07T11:30:00Z", true)});
  ASSERT_EQ(acked.size(), 1U);
  EXPECT_EQ(acked[0].status, Status::pass);
}

// Persistence: a port down fails only once it has held for history.persist_minutes in this
// boot's cycles without a break.
Finding port_down() {
  Finding f;
  f.id = "l3.comm.ib_ports";
  f.subject = "mlx5_0 port 1";
  f.status = Status::warn;
  f.variant = "down";
  return f;
}

TEST(HistoryRules, ALinkStateFailsOnlyOnceItPersists) {
  NodeEventFacts h;
  h.collected = true;
  h.boot_id = "boot-a";
  h.now = "2026-12-07T12:00:00Z";
  // First seen now: held back, with since when and for how long it must hold.
  std::vector<Finding> first{port_down()};
  hold_until_persistent(first, h, Thresholds{});
  EXPECT_EQ(first[0].status, Status::warn);
  EXPECT_EQ(first[0].args.at("held"), "1");
  EXPECT_EQ(first[0].evidence.size(), 2U);
  // Failing in every cycle since 11:50: ten minutes, past the five.
  h.cycles = {{"2026-12-07T11:50:00Z", {"l3.comm.ib_ports|mlx5_0 port 1"}}, {"2026-12-07T11:56:00Z", {"l3.comm.ib_ports|mlx5_0 port 1"}}};
  std::vector<Finding> held{port_down()};
  hold_until_persistent(held, h, Thresholds{});
  EXPECT_EQ(held[0].status, Status::fail);
  // A cycle in between where the port was up: the run starts again after it.
  h.cycles = {{"2026-12-07T11:50:00Z", {"l3.comm.ib_ports|mlx5_0 port 1"}}, {"2026-12-07T11:57:00Z", {}}, {"2026-12-07T11:58:00Z", {"l3.comm.ib_ports|mlx5_0 port 1"}}};
  std::vector<Finding> broken{port_down()};
  hold_until_persistent(broken, h, Thresholds{});
  EXPECT_EQ(broken[0].status, Status::warn);
  // Other checks are not held back.
  Finding other = port_down();
  other.id = "l3.gpu.xid";
  std::vector<Finding> xid{other};
  hold_until_persistent(xid, h, Thresholds{});
  EXPECT_EQ(xid[0].status, Status::warn);
  EXPECT_EQ(xid[0].args.count("held"), 0U);
}

}  // namespace
}  // namespace plumb
