// nccl-tests parser and ceiling on the corpus logs (tests/fixtures/comm/nccl-tests, see SOURCES.md).
#include <gtest/gtest.h>

#include "analyze/nccl_tests.h"
#include "analyze/topology.h"
#include "core/knowledge/links.h"
#include "../../test_util.h"

namespace plumb {
namespace {

NcclTestsRun load_nccl_log(const std::string& f) {
  auto r = parse_nccl_tests(test::read_fixture("comm/nccl-tests/" + f), f);
  EXPECT_TRUE(r.ok()) << (r ? "" : r.error().message);
  return r ? *r : NcclTestsRun{};
}

Fact<BusbwCeiling> ceiling(const NcclTestsRun& run, const std::string& f, const Topology* topo = nullptr,
                           std::optional<BusbwCeiling> forced = std::nullopt) {
  return infer_ceiling(run, device_bus_prefixes(test::read_fixture("comm/nccl-tests/" + f)), forced, topo, std::nullopt, 0, "");
}

TEST(NcclTests, GcpTwoNodeAllReduce) {
  auto run = load_nccl_log("gcp-a3mega-2node-16x-h100-all_reduce_perf.txt");
  EXPECT_EQ(run.rows.size(), 31u);
  EXPECT_EQ(run.ranks, 16);
  EXPECT_EQ(run.hosts, 2);
  EXPECT_EQ(run.out_of_bounds, 0);
  EXPECT_DOUBLE_EQ(*run.avg_busbw, 70.742);
  EXPECT_FALSE(run.truncated);
  BusbwSummary s = summarize(run);
  EXPECT_DOUBLE_EQ(*s.peak, 338.82);
  EXPECT_EQ(s.peak_size, 8589934592u);
  EXPECT_EQ(s.large_samples, 8);
  EXPECT_NEAR(*s.large_avg, 321.3575, 1e-9);
  auto c = ceiling(run, "gcp-a3mega-2node-16x-h100-all_reduce_perf.txt");
  ASSERT_TRUE(c.has()) << c.why();
  EXPECT_EQ(c->link, "NVLink4 x18");
  // Nominal 18 x 25 GB/s per direction; NCCL's ring reaches 18 x 20.6.
  EXPECT_NEAR(c->gbps, 450.0, 1e-9);
  EXPECT_NEAR(c->expected, 370.8, 1e-9);
  // Two H100 hosts: the network is the path, its rate unknown, so the ceiling is an assumption.
  EXPECT_EQ(c->path, "network");
  EXPECT_TRUE(c->assumed);
  EXPECT_NE(c->source.find("2 hosts: the network is the path and its rate is unknown"), std::string::npos) << c->source;
  auto net = infer_ceiling(run, {}, std::nullopt, nullptr, 1600.0, 8, "--net-gbps");
  ASSERT_TRUE(net.has());
  EXPECT_NEAR(net->gbps, 200.0, 1e-9);
  EXPECT_EQ(net->path, "network");
  EXPECT_FALSE(net->assumed);
}

TEST(NcclTests, SkyPilotOpenMpiPrefixes) {
  auto run = load_nccl_log("gcp-a3ultra-2node-16x-h200-all_gather_perf-skypilot-prefixed.txt");
  EXPECT_EQ(run.rows.size(), 24u);
  EXPECT_EQ(run.ranks, 16);
  EXPECT_EQ(run.rows.front().redop, "none");
  EXPECT_DOUBLE_EQ(*run.avg_busbw, 122.073);
  EXPECT_NEAR(*summarize(run).large_avg, 327.04625, 1e-9);
  EXPECT_EQ(strip_launcher_prefix("(head, rank=0, pid=3808) [1,0]<stdout>:#  x"), "#  x");
}

TEST(NcclTests, InterleavedInfoLinesAndNotApplicable) {
  auto run = load_nccl_log("leonardo-4x-a100-sxm-64gb-sendrecv_perf-nccl-info-interleaved.txt");
  EXPECT_EQ(run.rows.size(), 29u);
  EXPECT_EQ(run.ranks, 2);
  EXPECT_EQ(run.nccl_version, "2.22.3+cuda12.2");
  EXPECT_FALSE(run.rows[0].ip_wrong.has_value());
  EXPECT_EQ(run.rows[0].oop_wrong, 0.0);
  EXPECT_NEAR(*summarize(run).large_avg, 72.5475, 1e-9);
  // The file name names the binary the log lacks: a point-to-point test.
  EXPECT_EQ(run.collective, "sendrecv_perf");
  // Judged with the node's own topology (NV4 between the two GPUs): 4 x 25 GB/s nominal, 4 x 20 reached.
  auto topo = parse_topo_text(test::read_fixture("comm/nvidia-smi-topo/leonardo-4x-a100-sxm-64gb-nv4-4nic.txt"));
  ASSERT_TRUE(topo.ok());
  auto c = ceiling(run, "leonardo-4x-a100-sxm-64gb-sendrecv_perf-nccl-info-interleaved.txt", &*topo);
  ASSERT_TRUE(c.has()) << c.why();
  EXPECT_EQ(c->link, "NVLink3 x4");
  EXPECT_NEAR(c->gbps, 100.0, 1e-9);
  EXPECT_NEAR(c->expected, 80.0, 1e-9);
  EXPECT_FALSE(c->assumed);
  // Without the topology the model's full 12 links are assumed, and said to be.
  auto blind = ceiling(run, "leonardo-4x-a100-sxm-64gb-sendrecv_perf-nccl-info-interleaved.txt");
  ASSERT_TRUE(blind.has());
  EXPECT_NEAR(blind->gbps, 300.0, 1e-9);
  EXPECT_TRUE(blind->assumed);
  EXPECT_NE(blind->source.find("--topo-text"), std::string::npos) << blind->source;
  EXPECT_NE(blind->source.find("point-to-point pair"), std::string::npos) << blind->source;
}

TEST(NcclTests, HeaderlessFragmentNeedsALink) {
  auto run = load_nccl_log("liplus-8x-a100-sendrecv_perf-headerless-fragment.txt");
  EXPECT_EQ(run.rows.size(), 4u);
  EXPECT_FALSE(run.header_seen);
  EXPECT_TRUE(run.truncated);
  EXPECT_FALSE(ceiling(run, "liplus-8x-a100-sendrecv_perf-headerless-fragment.txt").has());
  auto c = ceiling(run, "liplus-8x-a100-sendrecv_perf-headerless-fragment.txt", nullptr, parse_link_option("nvlink3"));
  ASSERT_TRUE(c.has());
  EXPECT_NEAR(c->gbps, 300.0, 1e-9);
  EXPECT_FALSE(c->assumed);
  EXPECT_NEAR(*summarize(run).large_avg, 195.33, 1e-9);
}

TEST(NcclTests, TruncatedCommentRowAndElidedRanks) {
  auto run = load_nccl_log("oci-gb300-nvl72-1node-4gpu-all_reduce_perf-truncated.txt");
  EXPECT_EQ(run.rows.size(), 2u);
  EXPECT_EQ(run.collective, "all_reduce_perf");
  EXPECT_EQ(run.nccl_version, "2.28.7+cuda13.0");
  EXPECT_FALSE(run.truncated);
  EXPECT_NEAR(*summarize(run).large_avg, 683.16, 1e-9);
  auto c = ceiling(run, "oci-gb300-nvl72-1node-4gpu-all_reduce_perf-truncated.txt");
  ASSERT_TRUE(c.has());
  EXPECT_NEAR(c->gbps, 900.0, 1e-9);  // NVLink5: 18 x 50 GB/s per direction
  EXPECT_EQ(c->path, "intra-node");
  // 128 ranks, 4 GPUs per host (devices 0..3), only two hosts listed before the "...".
  auto big = load_nccl_log("oci-gb300-nvl72-32node-128gpu-all_reduce_perf-ranks-elided.txt");
  EXPECT_EQ(big.ranks, 128);
  EXPECT_EQ(big.hosts_listed, 2);
  EXPECT_EQ(big.hosts, 32);
  auto bc = ceiling(big, "oci-gb300-nvl72-32node-128gpu-all_reduce_perf-ranks-elided.txt");
  ASSERT_TRUE(bc.has());
  EXPECT_EQ(bc->path, "NVLink domain");
  EXPECT_NEAR(bc->gbps, 900.0, 1e-9);
  EXPECT_NE(bc->source.find("2 NVLink domains"), std::string::npos) << bc->source;
  auto a2a = load_nccl_log("oci-gb300-nvl72-1node-4gpu-alltoall_perf-inplace-na.txt");
  EXPECT_EQ(a2a.collective, "alltoall_perf");
  EXPECT_FALSE(a2a.rows[1].ip_wrong.has_value());
}

TEST(NcclTests, LogCutMidTableIsTruncated) {
  std::string text = test::read_fixture("comm/nccl-tests/gcp-a3mega-2node-16x-h100-all_reduce_perf.txt");
  text = text.substr(0, text.find("  2147483648"));
  auto r = parse_nccl_tests(text, "cut.txt");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->truncated);
  EXPECT_EQ(r->rows.size(), 28u);
}

TEST(NcclTests, OldFormatWithoutRootColumn) {
  auto r = parse_nccl_tests(
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "   1073741824     268435456   float     sum    9.1e+03  118.0  206.5  5e-07  9.0e+03  119.2  208.6  5e-07\n",
      "old.txt");
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(*r->rows[0].oop_busbw, 206.5);
  EXPECT_DOUBLE_EQ(*r->rows[0].oop_time_us, 9100.0);
}

TEST(NcclTests, JsonOutput) {
  auto r = parse_nccl_tests(
      R"({"collective":"all_reduce_perf","results":[{"size":1073741824,"count":268435456,"type":"float","redop":"sum","root":-1,
      "out_of_place":{"time":5000.0,"alg_bw":214.7,"bus_bw":375.8,"wrong":0},"in_place":{"time":5010.0,"alg_bw":214.3,"bus_bw":375.0,"wrong":"N/A"}}],
      "out_of_bounds":{"count":0,"okay":true},"average_bus_bandwidth":{"bandwidth":375.4}})",
      "run.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->collective, "all_reduce_perf");
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_DOUBLE_EQ(*r->rows[0].ip_busbw, 375.0);
  EXPECT_EQ(r->out_of_bounds, 0);
  EXPECT_DOUBLE_EQ(*r->avg_busbw, 375.4);
  EXPECT_FALSE(parse_nccl_tests("{\"a\":1}", "x.json").ok());
  EXPECT_FALSE(parse_nccl_tests("{", "x.json").ok());
}

TEST(NcclTests, GarbageIsAnError) {
  EXPECT_FALSE(parse_nccl_tests("", "e").ok());
  EXPECT_FALSE(parse_nccl_tests("hello world\n# Avg bus bandwidth : 3\n", "e").ok());
}

TEST(Links, OptionsAndTables) {
  auto l = parse_link_option("pcie4");
  ASSERT_TRUE(l);
  EXPECT_NEAR(l->gbps, 16 * 1.969, 1e-9);
  EXPECT_NEAR(l->expected, 24.0, 1e-9);
  EXPECT_NEAR(parse_link_option("pcie5x8")->expected, 24.0, 1e-9);
  EXPECT_NEAR(parse_link_option("nvlink4x12")->gbps, 12 * 25.0, 1e-9);
  EXPECT_NEAR(parse_link_option("nvlink4x12")->expected, 12 * 20.6, 1e-9);
  EXPECT_NEAR(parse_link_option("nvlink5")->gbps, 18 * 50.0, 1e-9);
  EXPECT_FALSE(parse_link_option("nvlink9"));
  EXPECT_FALSE(parse_link_option("ethernet"));
  EXPECT_EQ(pcie_gen_from_speed("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(pcie_gen_from_speed("8 GT/s"), 3);
  EXPECT_EQ(pcie_gen_from_speed("Unknown"), std::nullopt);
  EXPECT_EQ(gpu_model_by_name("NVIDIA A100-SXM-64GB")->nvlink_gen, 3);
  EXPECT_EQ(gpu_model_by_name("NVIDIA H100 PCIe")->nvlink_gen, 0);
}

}  // namespace
}  // namespace plumb
