// scontrol show node parser, on output captured from Slurm 22.05.8 (Debian 12's slurm-wlm)
// running on loopback: tests/fixtures/slurm/.
#include <gtest/gtest.h>

#include "collect/slurm_node.h"
#include "../../test_util.h"

namespace plumb {
namespace {

TEST(SlurmNodeParse, OneLineIdleNode) {
  auto n = parse_scontrol_node(test::read_fixture("slurm/idle.oneline.txt"), "plumbnode");
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(n->name, "plumbnode");
  EXPECT_EQ(n->state, "IDLE");
  EXPECT_EQ(n->base_state, "IDLE");
  EXPECT_TRUE(n->flags.empty());
  EXPECT_EQ(n->reason, "");
  EXPECT_FALSE(n->unavailable());
}

TEST(SlurmNodeParse, OperatorReasonWithKeysInsideStaysWhole) {
  for (const char* f : {"slurm/drained-operator.oneline.txt", "slurm/drained-operator.txt"}) {
    auto n = parse_scontrol_node(test::read_fixture(f), "plumbnode");
    ASSERT_TRUE(n.ok()) << f << ": " << n.error().message;
    EXPECT_EQ(n->state, "IDLE+DRAIN") << f;
    EXPECT_TRUE(n->has_flag("DRAIN"));
    EXPECT_TRUE(n->unavailable());
    EXPECT_EQ(n->reason, "bad dimm slot=3 State=ok") << f;
    EXPECT_EQ(n->reason_by, "root");
  }
}

TEST(SlurmNodeParse, PlumbReasonWithoutTheStamp) {
  auto n = parse_scontrol_node(test::read_fixture("slurm/drained-plumb.oneline.txt"), "plumbnode");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->reason, "plumb: l3.host.cpu_governor: scaling_governor powersave (+1 more)");
}

TEST(SlurmNodeParse, StatesAndFlags) {
  auto state_of = [](const std::string& s) {
    return parse_scontrol_node("NodeName=a State=" + s + " Reason=x [slurm@2024-01-01T00:00:00]", "a").value();
  };
  EXPECT_TRUE(state_of("DOWN+NOT_RESPONDING").unavailable());
  EXPECT_TRUE(state_of("DOWN*").unavailable());
  EXPECT_EQ(state_of("DOWN*").base_state, "DOWN");
  EXPECT_TRUE(state_of("MIXED+DRAIN").unavailable());
  EXPECT_TRUE(state_of("IDLE+FAIL").unavailable());
  EXPECT_TRUE(state_of("DRAINED").unavailable());
  EXPECT_FALSE(state_of("ALLOCATED+COMPLETING").unavailable());
  EXPECT_FALSE(state_of("IDLE+NOT_RESPONDING").unavailable());
  EXPECT_FALSE(state_of("MIXED").unavailable());
}

TEST(SlurmNodeParse, SeveralNodesAndMissingOnes) {
  std::string two = "NodeName=a State=IDLE\nNodeName=b State=IDLE+DRAIN Reason=r [u@t]\n";
  auto all = parse_scontrol_nodes(two);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ(parse_scontrol_node(two, "b")->reason, "r");
  EXPECT_FALSE(parse_scontrol_node(two, "c").ok());
  EXPECT_FALSE(parse_scontrol_node(two, "").ok());
  EXPECT_TRUE(parse_scontrol_node(test::read_fixture("slurm/all-nodes.txt"), "plumbnode").ok());
  EXPECT_FALSE(parse_scontrol_nodes("").ok());
  EXPECT_FALSE(parse_scontrol_nodes("Node nosuch not found\n").ok());
  EXPECT_FALSE(parse_scontrol_nodes("State=IDLE Reason=x").ok());
}

TEST(SlurmNodeParse, OddInputNeverCrashes) {
  for (const std::string& s : std::vector<std::string>{"NodeName=", "NodeName==", "=x NodeName=a", "NodeName=a Reason=", "NodeName=a Reason=[", "NodeName=a Reason=]",
                        "NodeName=a Reason=x [@]", "NodeName=a State=+ Reason= [a@b]", "NodeName=a NodeName=b",
                        std::string("NodeName=a\0State=IDLE", 21)}) {
    auto r = parse_scontrol_nodes(s);
    if (r.ok()) {
      for (const auto& n : *r) (void)n.unavailable();
    }
  }
  auto empty_reason = parse_scontrol_node("NodeName=a Reason=x [@]", "a");
  ASSERT_TRUE(empty_reason.ok());
  EXPECT_EQ(empty_reason->reason, "x");
}

}  // namespace
}  // namespace plumb
