// NCCL topology XML (written from the fixture PCI trees and read back; real corpus files) and the
// environment / nccl.conf / firewall parsers.
#include <gtest/gtest.h>

#include <algorithm>

#include "analyze/topology.h"
#include "collect/nccl_topo_xml.h"
#include "collect/nccl_env.h"
#include "collect/network.h"
#include "collect/pci.h"
#include "core/knowledge/nccl_vars.h"
#include "../../test_util.h"

namespace plumb {
namespace {

Result<NcclTopoXml> corpus(const std::string& f) { return parse_nccl_topo_xml(test::read_fixture("comm/nccl-topo-xml/" + f)); }

TEST(NcclXml, ReadsCorpusFiles) {
  auto ncv4 = corpus("azhpc-ncv4-topo.xml");
  ASSERT_TRUE(ncv4.ok());
  EXPECT_EQ(ncv4->cpus, 4);
  EXPECT_EQ(ncv4->gpu_bus_ids.size(), 4u);
  EXPECT_EQ(ncv4->net_names, (std::vector<std::string>{"eth0"}));
  auto ndv5 = corpus("azhpc-ndv5-topo.xml");
  ASSERT_TRUE(ndv5.ok());
  EXPECT_EQ(ndv5->gpu_bus_ids.size(), 8u);
  EXPECT_EQ(ndv5->nic_bus_ids.size(), 8u);
  auto ibm = corpus("ibmcloud-gx3d-8x-h100-8x-cx7-roce-topo-dump.xml");
  ASSERT_TRUE(ibm.ok());
  EXPECT_EQ(ibm->gpu_bus_ids.size(), 8u);
  EXPECT_EQ(ibm->nvlinks, 32);
  EXPECT_EQ(corpus("azhpc-ndv2-topo.xml")->cpus, 2);
  auto graph = corpus("azhpc-ncv4-graph.xml");
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.error().message.find("graph file"), std::string::npos);
  EXPECT_FALSE(parse_nccl_topo_xml("<system version=\"2\"><cpu/></system>").ok());
  EXPECT_FALSE(parse_nccl_topo_xml("<system><cpu/>").ok());
  EXPECT_FALSE(parse_nccl_topo_xml("").ok());
}

TEST(NcclXml, WrittenFromDgxTreeParsesBackWithItsBusIds) {
  HostRoot root(test::host_fixture("dgx-8gpu-2socket"));
  auto pci = read_pci_functions(root);
  auto ports = read_ib_ports(root);
  auto ifaces = read_interfaces(root);
  ASSERT_TRUE(pci && ports && ifaces);
  Topology t = build_topology(*pci, nic_refs(*ports, *ifaces), GpuFacts{});
  XmlCpuInfo cpu = parse_cpuinfo_for_nccl(*root.read("/proc/cpuinfo"));
  EXPECT_EQ(cpu.familyid, "6");
  EXPECT_EQ(cpu.modelid, "143");
  cpu.node_cpumap[0] = *root.read_value("/sys/devices/system/node/node0/cpumap");
  auto xml = write_nccl_topo_xml(t, cpu, *ports);
  ASSERT_TRUE(xml.ok()) << xml.error().message;
  auto back = parse_nccl_topo_xml(*xml);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->cpus, 2);
  EXPECT_EQ(back->gpu_bus_ids.size(), 8u);
  EXPECT_NE(std::find(back->gpu_bus_ids.begin(), back->gpu_bus_ids.end(), "0000:18:00.0"), back->gpu_bus_ids.end());
  EXPECT_EQ(back->net_names.size(), 5u);
  // Corpus structure: switch (upstream port) -> endpoint, <gpu dev sm>, <nic><net speed port>.
  EXPECT_NE(xml->find("<system version=\"1\">"), std::string::npos);
  EXPECT_NE(xml->find("<pci busid=\"0000:16:00.0\" class=\"0x060400\""), std::string::npos) << *xml;
  EXPECT_EQ(xml->find("busid=\"0000:17:00.0\""), std::string::npos);  // downstream ports are dropped, as NCCL does
  EXPECT_NE(xml->find("<gpu dev=\"0\" sm=\"90\""), std::string::npos);
  EXPECT_NE(xml->find("<net name=\"mlx5_0\" dev=\"0\" speed=\"400000\" port=\"1\""), std::string::npos);
  EXPECT_NE(xml->find("vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"143\""), std::string::npos);
  EXPECT_NE(xml->find("link_speed=\"32.0 GT/s PCIe\" link_width=\"16\""), std::string::npos);
}

TEST(NcclXml, TextTopologyCannotBeWritten) {
  Topology t;
  EXPECT_FALSE(write_nccl_topo_xml(t, {}, {}).ok());
}

TEST(Cpuinfo, AmdFamilyUsesNcclEncoding) {
  auto c = parse_cpuinfo_for_nccl("processor : 0\nvendor_id : AuthenticAMD\ncpu family : 25\nmodel : 1\n");
  EXPECT_EQ(c.familyid, "175");
  EXPECT_EQ(c.vendor, "AuthenticAMD");
}

TEST(Environ, ParsesNulSeparatedAndKeepsDistributedVars) {
  using namespace std::string_literals;
  std::string raw = "PATH=/bin\0NCCL_DEBUG=INFO\0CUDA_VISIBLE_DEVICES=0,1\0=junk\0NOEQUALS\0TORCH_NCCL_BLOCKING_WAIT=1\0"s;
  auto env = parse_environ(raw);
  EXPECT_EQ(env.at("NCCL_DEBUG"), "INFO");
  auto d = distributed_vars(env);
  EXPECT_EQ(d.size(), 3u);
  EXPECT_EQ(d.count("PATH"), 0u);
  auto conf = parse_nccl_conf("# site\nNCCL_IB_HCA=\"=mlx5_0\"\n  NCCL_DEBUG = WARN\nbad line\n");
  EXPECT_EQ(conf.at("NCCL_IB_HCA"), "=mlx5_0");
  EXPECT_EQ(conf.at("NCCL_DEBUG"), "WARN");
}

TEST(NcclVars, ValueChecks) {
  EXPECT_EQ(check_nccl_value(*find_nccl_var("NCCL_DEBUG"), "info").problem, "");
  EXPECT_EQ(check_nccl_value(*find_nccl_var("NCCL_DEBUG"), "VERBOSE").problem, "not_allowed");
  EXPECT_EQ(check_nccl_value(*find_nccl_var("NCCL_P2P_LEVEL"), "nvl").problem, "case");
  EXPECT_EQ(check_nccl_value(*find_nccl_var("NCCL_P2P_LEVEL"), "2").problem, "legacy_int");
  EXPECT_EQ(check_nccl_value(*find_nccl_var("NCCL_IB_TIMEOUT"), "40").problem, "range");
  EXPECT_EQ(check_nccl_value(*find_nccl_var("NCCL_IB_TIMEOUT"), "x").problem, "not_int");
  EXPECT_EQ(check_nccl_value(*find_nccl_var("NCCL_NTHREADS"), "300").problem, "not_allowed");
  EXPECT_EQ(check_nccl_value(*find_nccl_var("NCCL_ALGO"), "^NVLS,tree").problem, "");
  EXPECT_EQ(check_nccl_value(*find_nccl_var("NCCL_ALGO"), "allreduce:tree;broadcast:ring").problem, "");
  EXPECT_EQ(check_nccl_value(*find_nccl_var("NCCL_SOCKET_FAMILY"), "af_inet").problem, "case");
  EXPECT_EQ(find_nccl_var("NCCL_SOCKET_TIMEOUT"), nullptr);
  EXPECT_EQ(find_misnamed_var("NCCL_SOCKET_TIMEOUT")->kind, "myth");
  EXPECT_TRUE(is_plugin_var("NCCL_GPUDIRECTTCPX_FORCE_ACK"));
  // NVIDIA's CUDA images label the NCCL they ship (NCCL_VERSION=2.28.3-1 on an H200 machine): not audited.
  EXPECT_FALSE(is_audited_var("NCCL_VERSION"));
  EXPECT_TRUE(is_audited_var("NCCL_VERSIONS"));
  EXPECT_TRUE(is_audited_var("NCCL_DEBUG"));
}

TEST(Firewall, PolicyParsers) {
  EXPECT_EQ(parse_nft_input_policy("table inet filter {\n chain input {\n  type filter hook input priority 0; policy drop;\n }\n}\n"), "drop");
  EXPECT_EQ(parse_nft_input_policy("chain input { type filter hook input priority 0; policy accept; }"), "accept");
  EXPECT_EQ(parse_nft_input_policy("chain output { type filter hook output priority 0; policy drop; }"), "");
  EXPECT_EQ(parse_iptables_input_policy("*filter\n:INPUT DROP [0:0]\n:FORWARD ACCEPT [0:0]\nCOMMIT\n"), "drop");
  EXPECT_EQ(parse_iptables_input_policy("-P INPUT ACCEPT\n"), "accept");
  EXPECT_EQ(parse_ufw_input_policy("DEFAULT_INPUT_POLICY=\"REJECT\"\n"), "drop");
  EXPECT_EQ(parse_netfilter_modules("nf_tables 327680 0 - Live 0x0\nxfs 1 0 - Live 0x0\n"), (std::vector<std::string>{"nf_tables"}));
  EXPECT_EQ(parse_ib_rate("200 Gb/sec (4X HDR)"), 200.0);
  EXPECT_EQ(parse_ib_rate("Unknown"), std::nullopt);
}

}  // namespace
}  // namespace plumb
