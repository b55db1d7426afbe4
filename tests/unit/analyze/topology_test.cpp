// Topology: sysfs PCI trees of the fixture machines, the topo -m text parser on real samples,
// close groups and CUDA_VISIBLE_DEVICES resolution.
#include <gtest/gtest.h>

#include "analyze/topology.h"
#include "report/topo_render.h"
#include "collect/network.h"
#include "collect/pci.h"
#include "../../test_util.h"

namespace plumb {
namespace {

Topology machine(const std::string& name) {
  HostRoot root(test::host_fixture(name));
  auto pci = read_pci_functions(root);
  EXPECT_TRUE(pci.ok());
  auto ports = read_ib_ports(root);
  auto ifaces = read_interfaces(root);
  auto nics = nic_refs(ports ? *ports : std::vector<IbPort>{}, ifaces ? *ifaces : std::vector<NetIface>{});
  return build_topology(pci ? *pci : std::vector<PciFunction>{}, nics, GpuFacts{});
}

Topology text(const std::string& file) {
  auto t = parse_topo_text(test::read_fixture("comm/nvidia-smi-topo/" + file));
  EXPECT_TRUE(t.ok()) << (t ? "" : t.error().message);
  return t ? *t : Topology{};
}

TEST(PciLink, ParsesChainFromDeviceSymlink) {
  auto p = parse_pci_link("../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/0000:3c:01.0/0000:3d:00.0");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->host_bridge, "pci0000:3a");
  EXPECT_EQ(p->chain, (std::vector<std::string>{"0000:3a:00.0", "0000:3b:00.0", "0000:3c:01.0", "0000:3d:00.0"}));
  EXPECT_FALSE(parse_pci_link("../../../devices/platform/serial8250"));
  EXPECT_FALSE(parse_pci_link(""));
  EXPECT_EQ(parse_numa_node("-1"), std::nullopt);
  EXPECT_EQ(parse_numa_node("1\n"), 1);
}

TEST(Topology, DgxMatrixFollowsNvidiaSmiLevels) {
  Topology t = machine("dgx-8gpu-2socket");
  ASSERT_EQ(t.gpus.size(), 8u);
  ASSERT_EQ(t.nics.size(), 5u);  // mlx5_0..3 and the management port eno1
  EXPECT_EQ(t.gpus[0].bus_id, "0000:18:00.0");
  EXPECT_EQ(t.gpus[0].name, "NVIDIA H100 80GB HBM3 (SXM5)");
  EXPECT_EQ(t.nvswitch_count, 4);
  EXPECT_EQ(topo_cell(t, 0, 1), "PIX");   // same PCIe switch
  EXPECT_EQ(topo_cell(t, 0, 2), "NODE");  // other host bridge, same socket
  EXPECT_EQ(topo_cell(t, 0, 4), "SYS");   // other socket
  EXPECT_EQ(topo_cell(t, 0, 8), "PIX");   // GPU0 - NIC0 (mlx5_0) share the switch
  EXPECT_EQ(topo_cell(t, 0, 9), "NODE");
  EXPECT_EQ(topo_cell(t, 0, 10), "SYS");
  EXPECT_EQ(t.nics[0].name, "mlx5_0");
  EXPECT_EQ(t.nics[0].kind, "ib");
  EXPECT_EQ(t.nics[4].name, "eno1");
  EXPECT_EQ(t.gpus[4].numa_node, 1);
  EXPECT_EQ(t.gpus[4].cpulist, "56-111,168-223");
}

GpuDevice nvml_gpu(const std::string& bus, std::vector<GpuNvLinkPeer> peers, std::size_t slots = 18) {
  GpuDevice d;
  d.bus_id = bus;
  std::vector<bool> active(slots, false);
  for (const auto& p : peers) active.at(p.link) = true;
  d.nvlink_active = Fact<std::vector<bool>>::of(active, "test");
  d.nvlink_peers = Fact<std::vector<GpuNvLinkPeer>>::of(std::move(peers), "test");
  return d;
}

TEST(Topology, NvmlSwitchLinksGiveEveryPairTheFabricCount) {
  HostRoot root(test::host_fixture("dgx-8gpu-2socket"));
  auto pci = read_pci_functions(root);
  ASSERT_TRUE(pci.ok());
  GpuFacts g;
  g.collected = true;
  const char* buses[] = {"0000:18:00.0", "0000:19:00.0", "0000:3a:00.0", "0000:3b:00.0",
                         "0000:9a:00.0", "0000:9b:00.0", "0000:ba:00.0", "0000:bb:00.0"};
  for (const char* b : buses) {
    std::vector<GpuNvLinkPeer> peers;
    // 18 links over the four NVSwitch functions of the fixture; half report the type, half only the
    // switch's bus id (as older drivers do): both count as switch links.
    for (unsigned l = 0; l < 18; ++l) {
      std::string sw = "0000:0" + std::to_string(5 + l % 4) + ":00.0";
      peers.push_back({l, l % 2 == 0 ? "switch" : "unknown", sw});
    }
    g.devices.push_back(nvml_gpu(b, peers));
  }
  Topology t = build_topology(*pci, {}, g);
  EXPECT_TRUE(t.nvlink_known);
  EXPECT_EQ(topo_cell(t, 0, 1), "NV18");
  EXPECT_EQ(topo_cell(t, 0, 7), "NV18");
  EXPECT_EQ(topo_cell(t, 3, 3), "X");
  auto groups = close_groups(t, 4);
  ASSERT_FALSE(groups.empty());
  EXPECT_EQ(groups[0].worst, "NV18");
  EXPECT_EQ(groups[0].gpus, (std::vector<int>{0, 1, 2, 3}));  // ties split by the PCIe distance
}

TEST(Topology, NvmlDirectLinksCountPerPairAndUnknownPeersStayUnknown) {
  Topology base;
  base.gpus.resize(4);
  const char* buses[] = {"0000:07:00.0", "0000:0f:00.0", "0000:47:00.0", "0000:4e:00.0"};
  for (int i = 0; i < 4; ++i) base.gpus[static_cast<std::size_t>(i)].bus_id = buses[i];
  base.pcie.assign(4, std::vector<std::string>(4, "SYS"));
  base.nvlinks.assign(4, std::vector<int>(4, 0));
  GpuFacts g;
  g.collected = true;
  // HGX A100 4-GPU board: 12 links per GPU, 4 to each peer.
  for (int i = 0; i < 4; ++i) {
    std::vector<GpuNvLinkPeer> peers;
    for (unsigned l = 0; l < 12; ++l) peers.push_back({l, "gpu", buses[(i + 1 + static_cast<int>(l) / 4) % 4]});
    g.devices.push_back(nvml_gpu(buses[i], peers, 12));
  }
  Topology t = base;
  merge_nvml_links(t, g);
  EXPECT_TRUE(t.nvlink_known);
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 4; ++j) EXPECT_EQ(topo_cell(t, i, j), i == j ? "X" : "NV4") << i << "," << j;
  }
  // One GPU's links are up but the driver cannot say where they go: no guess, counts stay unknown.
  g.devices[2].nvlink_peers = Fact<std::vector<GpuNvLinkPeer>>::none("NVML_ERROR_NOT_SUPPORTED", "test");
  Topology u = base;
  merge_nvml_links(u, g);
  EXPECT_FALSE(u.nvlink_known);
  // A PCIe-only board answers NOT_SUPPORTED: known, no NVLink.
  GpuFacts pcie;
  pcie.collected = true;
  for (const char* b : buses) {
    GpuDevice d;
    d.bus_id = b;
    d.nvlink_active = Fact<std::vector<bool>>::none("NVML_ERROR_NOT_SUPPORTED (not supported by this GPU or driver)", "test");
    pcie.devices.push_back(d);
  }
  Topology v = base;
  merge_nvml_links(v, pcie);
  EXPECT_TRUE(v.nvlink_known);
  EXPECT_EQ(topo_cell(v, 0, 1), "SYS");
}

TEST(Topology, PcieNodeAcrossTwoSockets) {
  Topology t = machine("pcie-4gpu-2socket");
  ASSERT_EQ(t.gpus.size(), 4u);
  ASSERT_EQ(t.nics.size(), 1u);
  EXPECT_EQ(t.nics[0].kind, "roce");
  EXPECT_EQ(topo_cell(t, 0, 1), "PIX");
  EXPECT_EQ(topo_cell(t, 1, 2), "SYS");
  EXPECT_EQ(topo_cell(t, 2, 3), "PIX");
  EXPECT_EQ(topo_cell(t, 0, 4), "NODE");
  EXPECT_EQ(topo_cell(t, 3, 4), "SYS");
}

TEST(Topology, RootPortsOfOneHostBridgeArePhb) {
  Topology t = machine("noib-2gpu-eth");
  ASSERT_EQ(t.gpus.size(), 2u);
  EXPECT_EQ(topo_cell(t, 0, 1), "PHB");
  ASSERT_EQ(t.nics.size(), 1u);
  EXPECT_EQ(t.nics[0].name, "eth0");
  EXPECT_EQ(t.nics[0].kind, "eth");
}

TEST(CloseGroups, DgxGroupsOfFourStayOnOneSocket) {
  Topology t = machine("dgx-8gpu-2socket");
  auto g = close_groups(t, 4);
  ASSERT_GE(g.size(), 2u);
  EXPECT_EQ(g[0].gpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(g[1].gpus, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(g[0].worst, "NODE");
  EXPECT_EQ(visible_devices_value(g[0].gpus), "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1,2,3");
  auto pairs = close_groups(t, 2);
  ASSERT_EQ(pairs.size(), 4u);
  EXPECT_EQ(pairs[3].gpus, (std::vector<int>{6, 7}));
  EXPECT_EQ(pairs[0].worst, "PIX");
  EXPECT_TRUE(close_groups(t, 9).empty());
  EXPECT_TRUE(close_groups(t, 0).empty());
}

TEST(CloseGroups, NvlinkBeatsPcieAndNvswitchTiesSplitBySocket) {
  Topology t = text("dstack-8x-h100-sxm5-nv18-1nic-from-vllm-env.txt");
  auto g = close_groups(t, 4);
  ASSERT_GE(g.size(), 2u);
  EXPECT_EQ(g[0].worst, "NV18");
  EXPECT_EQ(g[0].gpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(g[1].gpus, (std::vector<int>{4, 5, 6, 7}));
}

TEST(TopoText, LeadingTabNicLegendAndTrailingSpace) {
  Topology t = text("leonardo-4x-a100-sxm-64gb-nv4-4nic.txt");
  ASSERT_EQ(t.gpus.size(), 4u);
  ASSERT_EQ(t.nics.size(), 4u);
  EXPECT_EQ(t.nics[3].name, "mlx5_3");
  EXPECT_EQ(topo_cell(t, 0, 1), "NV4");
  EXPECT_EQ(topo_cell(t, 0, 4), "PXB");
  EXPECT_EQ(topo_cell(t, 7, 6), "SYS");
  EXPECT_EQ(t.gpus[0].cpulist, "0");
}

TEST(TopoText, HeaderWithoutLeadingTabAndEmptyCells) {
  Topology t = text("dstack-8x-h100-sxm5-nv18-1nic-from-vllm-env.txt");
  ASSERT_EQ(t.gpus.size(), 8u);
  ASSERT_EQ(t.nics.size(), 1u);
  EXPECT_EQ(t.nics[0].name, "mlx5_0");
  EXPECT_EQ(t.gpus[4].cpulist, "104-207");
  EXPECT_EQ(t.gpus[4].numa_node, 1);
  EXPECT_EQ(topo_cell(t, 3, 5), "NV18");
  EXPECT_EQ(topo_cell(t, 8, 0), "SYS");
}

TEST(TopoText, SpacesInsteadOfTabsAndPhb) {
  Topology t = text("hpe-dl380a-gen11-2x-h100-pcie-nvlink-bridge-nv12-spaces.txt");
  ASSERT_EQ(t.gpus.size(), 2u);
  EXPECT_EQ(topo_cell(t, 0, 1), "NV12");
  EXPECT_EQ(t.gpus[1].cpulist, "32-63,96-127");
  Topology c = text("club3090-2x-rtx5090-pcie-phb-no-nvlink.txt");
  EXPECT_EQ(topo_cell(c, 1, 0), "PHB");
  Topology s = text("go-gpuallocator-8x-rtx4090-all-sys-2numa.txt");
  ASSERT_EQ(s.nics.size(), 2u);
  EXPECT_EQ(topo_cell(s, 6, 8), "PHB");
  EXPECT_EQ(topo_cell(s, 8, 9), "PIX");
  EXPECT_EQ(close_groups(s, 2).front().worst, "SYS");
}

TEST(TopoText, RejectsP2pMatrixTruncationAndGarbage) {
  auto p2p = parse_topo_text(test::read_fixture("comm/nvidia-smi-topo/club3090-2x-rtx5090-topo-p2p-rw-gns.txt"));
  ASSERT_FALSE(p2p.ok());
  EXPECT_NE(p2p.error().message.find("GNS"), std::string::npos);
  EXPECT_FALSE(parse_topo_text("").ok());
  EXPECT_FALSE(parse_topo_text("hello\nworld").ok());
  auto cut = parse_topo_text("\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV4\t0\n");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("GPU1"), std::string::npos);
  EXPECT_TRUE(parse_topo_text("\tGPU0\tGPU1\r\nGPU0\t X \tSOC\r\nGPU1\tSOC\t X \r\n").ok());
}

TEST(VisibleDevices, ResolvesIndicesAndRejectsUnknown) {
  Topology t = machine("dgx-8gpu-2socket");
  auto s = resolve_visible_devices("0,1,4,5", t, GpuFacts{});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(score_group(t, *s).worst, "SYS");
  EXPECT_FALSE(resolve_visible_devices("0,12", t, GpuFacts{}).ok());
  EXPECT_FALSE(resolve_visible_devices("GPU-abc", t, GpuFacts{}).ok());
  GpuFacts g;
  GpuDevice dev;
  dev.uuid = "GPU-1234-aaaa";
  dev.bus_id = "0000:3b:00.0";
  dev.name = "NVIDIA H100 80GB HBM3";
  g.devices.push_back(dev);
  auto u = resolve_visible_devices("GPU-1234", t, g);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(*u, (std::vector<int>{3}));
}

TEST(Matrix, RendersNvidiaSmiLayout) {
  Topology t = text("leonardo-4x-a100-sxm-64gb-nv4-4nic.txt");
  std::string m = render_topo_matrix(t, TopoWords{});
  EXPECT_NE(m.find("GPU0     X      NV4"), std::string::npos) << m;
  EXPECT_NE(m.find("NIC Legend:"), std::string::npos);
  EXPECT_NE(m.find("  NIC2: mlx5_2"), std::string::npos);
}

}  // namespace
}  // namespace plumb
