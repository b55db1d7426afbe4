// Fleet analysis: snapshots reduced to what a fleet compares, grouping, consistency.
#include "analyze/fleet.h"

#include <gtest/gtest.h>

namespace plumb {

namespace {

std::string snapshot(const std::string& host, const std::string& kernel, const std::string& governor, double mem_gib,
                     const std::string& findings, const std::string& hca = "mlx5_0", double membw = 100) {
  return R"({"facts": {"meta": {"hostname": ")" + host + R"(", "started_at": "2026-01-01T00:00:00Z"},
    "host": {"os": {"kernel": {"value": ")" + kernel + R"(", "source": "/proc/sys/kernel/osrelease"}},
             "cpu": {"governors": {"value": [{"cpu": 0, "governor": ")" + governor + R"("}, {"cpu": 1, "governor": ")" +
         governor + R"("}]}},
             "memory": {"mem_total_bytes": {"value": )" + std::to_string(static_cast<long long>(mem_gib * 1073741824.0)) + R"(},
                        "mem_available_bytes": {"value": )" + std::to_string(static_cast<long long>(mem_gib * 1e9 / 3)) + R"(},
                        "thp_enabled": {"missing": "absent"}}},
    "comm": {"env": {"value": {"NCCL_IB_HCA": ")" + hca + R"(", "HOME": "/root"}},
             "ib_ports": {"value": [{"device": "mlx5_0", "port": 1, "rate_gbps": 400.0, "state": "4: ACTIVE"}]}},
    "bench": {"results": [{"bench": "membw", "status": "ok", "metrics": [{"name": "membw.copy.all", "unit": "GB/s",
              "higher_is_better": true, "median": )" + std::to_string(membw) + R"(}]}]}},
    "findings": [)" + findings + "]}";
}

const char* kGovernorFail = R"({"id": "l3.cpu.governor", "status": "fail", "subject": "host", "args": {"governor": "powersave"}})";
const char* kSwapWarn = R"({"id": "l3.memory.swap", "status": "warn", "subject": "host"})";

NodeSnapshot read(const std::string& text, const std::string& origin = "x.json") {
  auto n = read_node_snapshot(text, origin, nullptr);
  EXPECT_TRUE(n) << (n ? "" : n.error().message);
  return n ? std::move(n.value()) : NodeSnapshot{};
}

}  // namespace

TEST(FleetSnapshot, KeepsWhatAFleetCompares) {
  NodeSnapshot n = read(snapshot("gpu01", "6.1.0-18-amd64", "performance", 512, std::string(kGovernorFail) + "," + kSwapWarn));
  EXPECT_EQ(n.node.host, "gpu01");
  EXPECT_EQ(n.values.at("os.kernel"), "6.1.0-18-amd64");
  EXPECT_EQ(n.values.at("cpu.governor"), "performance");  // distinct values over the CPUs
  EXPECT_EQ(n.values.at("memory.total"), "512 GiB");
  EXPECT_EQ(n.values.at("memory.thp"), "n/a");
  EXPECT_EQ(n.values.at("net.ib_rate"), "400.0");
  EXPECT_EQ(n.values.at("env.NCCL_IB_HCA"), "mlx5_0");
  EXPECT_EQ(n.values.count("env.HOME"), 0u);  // not a relevant variable
  EXPECT_EQ(n.values.count("memory.available"), 0u);  // may differ: never compared
  EXPECT_EQ(n.node.fail, 1);
  EXPECT_EQ(n.node.warn, 1);
  ASSERT_EQ(n.metrics.size(), 1u);
  EXPECT_EQ(n.metrics[0].samples[0].host, "gpu01");
  EXPECT_DOUBLE_EQ(n.line_rate_gbytes_per_s, 50);
  EXPECT_DOUBLE_EQ(n.nic_gbit, 400);
  EXPECT_EQ(n.nic_ports, 1);
}

TEST(FleetSnapshot, NcclLinkIsEveryActiveIbPortTogether) {
  std::string text = R"({"facts": {"meta": {"hostname": "g1"}, "comm": {"ib_ports": {"value": [
      {"device": "mlx5_0", "port": 1, "rate_gbps": 400.0, "state": "4: ACTIVE"},
      {"device": "mlx5_1", "port": 1, "rate_gbps": 400.0, "state": "4: ACTIVE"},
      {"device": "mlx5_2", "port": 1, "rate_gbps": 400.0, "state": "1: DOWN"}]},
    "interfaces": {"value": [{"name": "eth0", "operstate": "up", "speed_mbps": {"value": 100000}}]}}}})";
  NodeSnapshot n = read(text);
  EXPECT_DOUBLE_EQ(n.nic_gbit, 800);  // the DOWN port is not counted
  EXPECT_EQ(n.nic_ports, 2);
  EXPECT_DOUBLE_EQ(n.line_rate_gbytes_per_s, 50);  // the sweep's reference: one port
  // Without IB, NCCL's sockets use one interface: the fastest Ethernet that is up.
  NodeSnapshot e = read(R"({"facts": {"meta": {"hostname": "g2"}, "comm": {"interfaces": {"value": [
      {"name": "eth0", "operstate": "up", "speed_mbps": {"value": 25000}},
      {"name": "eth1", "operstate": "up", "speed_mbps": {"value": 100000}},
      {"name": "eth2", "operstate": "down", "speed_mbps": {"value": 200000}}]}}}})");
  EXPECT_DOUBLE_EQ(e.nic_gbit, 100);
  EXPECT_EQ(e.nic_ports, 1);
  EXPECT_EQ(e.nic_source, "/sys/class/net/eth1/speed");
}

TEST(FleetSnapshot, BadInputIsAnError) {
  EXPECT_FALSE(read_node_snapshot("{", "a.json", nullptr));
  EXPECT_FALSE(read_node_snapshot("[1,2]", "a.json", nullptr));
  EXPECT_FALSE(read_node_snapshot(R"({"facts": 3})", "a.json", nullptr));
  auto bad = read_node_snapshot(R"({"facts": {"meta": {}}, "findings": [{"status": "nonsense"}]})", "a.json", nullptr);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("a.json"), std::string::npos);
}

TEST(FleetSnapshot, WithoutFindingsTheFactsAreJudged) {
  int calls = 0;
  JudgeFn judge = [&](const Facts& f) {
    ++calls;
    EXPECT_EQ(f.meta.hostname, "n1");
    Finding x;
    x.id = "l3.cpu.governor";
    x.status = Status::fail;
    return std::vector<Finding>{x};
  };
  auto n = read_node_snapshot(R"({"facts": {"meta": {"hostname": "n1"}}})", "n1.json", judge);
  ASSERT_TRUE(n);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(n->node.fail, 1);
}

TEST(FleetAnalysis, OddNodeIsNamedWithBothValues) {
  std::vector<NodeSnapshot> nodes;
  for (int i = 1; i <= 5; ++i) nodes.push_back(read(snapshot("gpu0" + std::to_string(i), "6.1.0-18-amd64", "performance", 512, "")));
  nodes.push_back(read(snapshot("gpu06", "5.15.0-91-generic", "powersave", 256, "", "mlx5_1")));
  FleetFacts f = build_fleet(nodes);
  ASSERT_TRUE(f.collected);
  EXPECT_EQ(f.nodes.size(), 6u);
  std::map<std::string, FleetMismatch> by_key;
  for (const auto& m : f.mismatches) by_key[m.key] = m;
  for (const char* key : {"os.kernel", "cpu.governor", "memory.total", "env.NCCL_IB_HCA"}) {
    ASSERT_EQ(by_key.count(key), 1u) << key;
    ASSERT_EQ(by_key[key].odd.size(), 1u) << key;
    EXPECT_EQ(by_key[key].odd[0].host, "gpu06");
    EXPECT_EQ(by_key[key].majority_nodes, 5);
    EXPECT_EQ(by_key[key].severity, "fail");
  }
  EXPECT_EQ(by_key["os.kernel"].majority, "6.1.0-18-amd64");
  EXPECT_EQ(by_key["os.kernel"].odd[0].value, "5.15.0-91-generic");
  EXPECT_EQ(by_key["memory.total"].odd[0].value, "256 GiB");
  EXPECT_EQ(by_key.size(), 4u);
  EXPECT_GT(f.compared_keys, 4);
  ASSERT_EQ(f.metrics.size(), 1u);
  EXPECT_EQ(f.metrics[0].samples.size(), 6u);
  EXPECT_DOUBLE_EQ(f.network.line_rate_gbytes_per_s, 50);
}

TEST(FleetAnalysis, ConsistentFleetHasNoMismatch) {
  std::vector<NodeSnapshot> nodes;
  for (int i = 1; i <= 3; ++i) nodes.push_back(read(snapshot("n" + std::to_string(i), "6.1", "performance", 512, "")));
  FleetFacts f = build_fleet(nodes);
  EXPECT_TRUE(f.mismatches.empty());
}

TEST(FleetAnalysis, MissingNodeIsKeptAndNotCompared) {
  std::vector<NodeSnapshot> nodes{read(snapshot("n1", "6.1", "performance", 512, "")), read(snapshot("n2", "6.1", "performance", 512, "")),
                                  missing_node("n3", "rank 2", "timed out after 30 s")};
  FleetFacts f = build_fleet(nodes);
  EXPECT_TRUE(f.mismatches.empty());
  ASSERT_EQ(f.nodes.size(), 3u);
  EXPECT_EQ(f.nodes[2].no_result, "timed out after 30 s");
}

TEST(FleetAnalysis, SameFindingOnManyNodesIsOneGroup) {
  std::vector<NodeSnapshot> nodes;
  for (int i = 1; i <= 60; ++i) {
    std::string h = (i < 10 ? "gpu0" : "gpu") + std::to_string(i);
    nodes.push_back(read(snapshot(h, "6.1", "performance", 512, i <= 58 ? kGovernorFail : kSwapWarn)));
  }
  auto groups = group_findings(nodes);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].first.id, "l3.cpu.governor");  // failures first
  EXPECT_EQ(groups[0].hosts.size(), 58u);
  EXPECT_EQ(groups[1].hosts.size(), 2u);
  EXPECT_EQ(groups[1].hosts[0], "gpu59");
}

TEST(FleetAnalysis, DuplicateHostNamesAreMadeUnique) {
  std::vector<NodeSnapshot> nodes{read(snapshot("n1", "6.1", "performance", 512, "")), read(snapshot("n1", "6.1", "performance", 512, ""))};
  unique_hosts(nodes);
  EXPECT_EQ(nodes[1].node.host, "n1#2");
  EXPECT_EQ(nodes[1].metrics[0].samples[0].host, "n1#2");
}

TEST(FleetAnalysis, TableSaysWhatMayDiffer) {
  int differs = 0, must = 0;
  for (const auto& row : consistency_table()) {
    differs += row.severity == "differs" ? 1 : 0;
    must += row.severity == "fail" ? 1 : 0;
  }
  EXPECT_GE(differs, 3);
  EXPECT_GE(must, 10);
}

}  // namespace plumb
