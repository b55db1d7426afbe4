// Faults over time: the same hardware fault in one boot passes, in two boots warns (reset or
// reboot), after history.reboots_to_inspect reboots fails (hardware inspection); acknowledged
// events and application-caused Xids do not count; nothing is said when the agent did not run.
#include <gtest/gtest.h>

#include "core/registry.h"
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

}  // namespace
}  // namespace plumb
