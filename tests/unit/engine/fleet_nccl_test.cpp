// The multi-node all-reduce in the fleet report: the ceiling from the nodes' NICs, the sweep judged
// by the nccl-tests busbw rule, a failed join named.
#include <gtest/gtest.h>

#include "engine/fleet_report.h"
#include "bench/nccl_world.h"

namespace plumb {

namespace {

NodeSnapshot nic_node(const std::string& host, double gbit, int ports) {
  NodeSnapshot n;
  n.node.host = host;
  n.nic_gbit = gbit;
  n.nic_ports = ports;
  n.nic_source = "/sys/class/infiniband/*/ports/*/rate (" + std::to_string(ports) + " active)";
  return n;
}

const Finding* find(const Report& r, const std::string& id) {
  for (const auto& f : r.findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

FleetRun measured(double seconds_per_gib) {
  FleetRun run;
  run.mode = "mpi";
  run.nccl.status = "measured";
  run.nccl.why = "16 GPUs on 2 nodes, NCCL 2.21.5";
  auto r = parse_nccl_world("nccl 2.21.5\nsize 1073741824 " + std::to_string(seconds_per_gib) + "\n");
  EXPECT_TRUE(r);
  run.nccl.run = nccl_world_run(*r, 16, 2, "NCCL all-reduce, 16 GPUs on 2 nodes");
  return run;
}

}  // namespace

TEST(FleetNccl, CeilingIsTheSlowestNodesNics) {
  std::vector<NodeSnapshot> nodes{nic_node("a", 3200, 8), nic_node("b", 1600, 4)};
  auto c = fleet_nccl_ceiling(nodes, false);
  ASSERT_TRUE(c.has()) << c.why();
  EXPECT_DOUBLE_EQ(c->gbps, 200);
  EXPECT_EQ(c->path, "network");
  EXPECT_EQ(c->source.rfind("b: ", 0), 0u) << c->source;
  EXPECT_FALSE(fleet_nccl_ceiling(nodes, true).has());
  nodes.push_back(nic_node("c", 0, 0));
  auto none = fleet_nccl_ceiling(nodes, false);
  ASSERT_FALSE(none.has());
  EXPECT_NE(none.why().find("c: "), std::string::npos) << none.why();
}

TEST(FleetNccl, SweepIsJudgedAgainstTheNics) {
  // 8 x 200 Gb/s per node: 200 GB/s. 1 GiB all-reduced over 16 ranks in 12 ms: busbw 168 GB/s, passes;
  // in 40 ms: 50 GB/s, fails.
  std::vector<NodeSnapshot> nodes{nic_node("a", 1600, 8), nic_node("b", 1600, 8)};
  Report ok = judge_fleet(nodes, measured(0.012), Config{});
  const Finding* busbw = find(ok, "l2.comm.allreduce_slow");
  ASSERT_NE(busbw, nullptr);
  EXPECT_EQ(busbw->status, Status::pass);
  const Finding* nccl = find(ok, "l2.fleet.nccl_allreduce");
  ASSERT_NE(nccl, nullptr);
  EXPECT_EQ(nccl->status, Status::pass);
  Report slow = judge_fleet(nodes, measured(0.040), Config{});
  busbw = find(slow, "l2.comm.allreduce_slow");
  ASSERT_NE(busbw, nullptr);
  EXPECT_EQ(busbw->status, Status::fail);
  EXPECT_EQ(exit_code_for(slow.findings), 1);
}

TEST(FleetNccl, FailedJoinFailsWithTheRanksNamed) {
  std::vector<NodeSnapshot> nodes{nic_node("a", 1600, 8), nic_node("b", 1600, 8)};
  FleetRun run;
  run.nccl.status = "failed";
  run.nccl.why = "b: the NCCL all-reduce timed out after 120 s";
  Report r = judge_fleet(nodes, run, Config{});
  const Finding* nccl = find(r, "l2.fleet.nccl_allreduce");
  ASSERT_NE(nccl, nullptr);
  EXPECT_EQ(nccl->status, Status::fail);
  EXPECT_EQ(nccl->args.at("why"), run.nccl.why);
  EXPECT_EQ(find(r, "l2.comm.allreduce_slow"), nullptr);
  FleetRun skipped;
  skipped.nccl.why = "--no-nccl";
  Report s = judge_fleet(nodes, skipped, Config{});
  ASSERT_NE(find(s, "l2.fleet.nccl_allreduce"), nullptr);
  EXPECT_EQ(find(s, "l2.fleet.nccl_allreduce")->status, Status::skip);
}

}  // namespace plumb
