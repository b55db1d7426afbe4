// Parsers of the name-resolution, IOMMU, PCIe ACS, GID-table and GPU-process collectors, on real
// samples: Debian's /etc/hosts, pciutils' lspci dumps (decoded ACS flags to compare with), the
// 64 bytes an unprivileged reader gets from sysfs config (prometheus/procfs fixtures), the kernel's
// GID type strings.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include "collect/gpu_processes.h"
#include "collect/ib_gids.h"
#include "collect/iommu.h"
#include "collect/name_resolution.h"
#include "collect/pci_acs.h"
#include "../../test_util.h"

namespace plumb {
namespace {

// The first device of an `lspci -vvvxxxx` dump: its config bytes and lspci's decoded ACSCtl line.
struct LspciDump {
  std::string config;
  std::string acs_ctl;  // "SrcValid+ TransBlk+ ..." or "" when lspci shows no ACS
  std::string acs_cap;
};
LspciDump read_dump(const std::string& name) {
  std::istringstream in(test::read_fixture("sysconfig/pci/" + name));
  LspciDump d;
  std::string bytes(4096, '\0');
  std::size_t end = 0;
  std::string line;
  int devices = 0;
  static const std::regex hex_line("^([0-9a-f]{2,3}): ((?:[0-9a-f]{2} ?)+)$");
  static const std::regex header("^[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9] .*");
  while (std::getline(in, line)) {
    if (std::regex_match(line, header) && ++devices > 1) break;
    std::smatch m;
    auto t = std::string(trim(line));
    if (std::regex_match(t, m, hex_line)) {
      std::size_t off = std::stoul(m[1].str(), nullptr, 16);
      std::istringstream hx(m[2].str());
      std::string byte;
      while (hx >> byte && off < bytes.size()) bytes[off++] = static_cast<char>(std::stoul(byte, nullptr, 16));
      end = std::max(end, off);
    }
    if (t.rfind("ACSCtl:", 0) == 0) d.acs_ctl = std::string(trim(t.substr(7)));
    if (t.rfind("ACSCap:", 0) == 0) d.acs_cap = std::string(trim(t.substr(7)));
  }
  d.config = bytes.substr(0, end);
  return d;
}

TEST(PciAcs, HaswellRootPortWithRedirectMatchesLspci) {
  auto d = read_dump("cap-aer-root");
  ASSERT_EQ(d.config.size(), 4096u);
  auto info = parse_pci_config(d.config);
  EXPECT_EQ(info.port_type, "root port");
  ASSERT_TRUE(info.has_acs.has_value());
  ASSERT_TRUE(*info.has_acs);
  EXPECT_EQ(info.acs_offset, 0x110);
  ASSERT_TRUE(info.acs_ctrl && info.acs_cap);
  EXPECT_EQ(acs_flags_text(*info.acs_ctrl), d.acs_ctl);
  EXPECT_EQ(acs_flags_text(*info.acs_cap), d.acs_cap);
  EXPECT_NE(*info.acs_ctrl & kAcsP2pRequestRedirect, 0);
}

TEST(PciAcs, SunrisePointRootPortWithAcsOffMatchesLspci) {
  auto d = read_dump("cap-aer-ecrc-label");
  auto info = parse_pci_config(d.config);
  EXPECT_EQ(info.port_type, "root port");
  ASSERT_TRUE(info.has_acs.value_or(false));
  EXPECT_EQ(info.acs_offset, 0x140);
  EXPECT_EQ(acs_flags_text(*info.acs_ctrl), d.acs_ctl);
  EXPECT_EQ(*info.acs_ctrl, 0);
}

TEST(PciAcs, PlxSwitchWithoutAcs) {
  auto d = read_dump("cap-multicast");
  auto info = parse_pci_config(d.config);
  EXPECT_EQ(info.port_type, "switch upstream port");
  ASSERT_TRUE(info.has_acs.has_value());
  EXPECT_FALSE(*info.has_acs);
  EXPECT_TRUE(d.acs_ctl.empty());
}

TEST(PciAcs, UnprivilegedReadOf64BytesLeavesAcsUnknown) {
  auto cfg = test::read_fixture("sysconfig/pci/procfs-0000:00:02.1-config-64");
  ASSERT_EQ(cfg.size(), 64u);
  auto info = parse_pci_config(cfg);
  EXPECT_EQ(info.size, 64);
  EXPECT_FALSE(info.has_acs.has_value());
  // 256 bytes (the standard space only) still lack the extended list.
  auto d = read_dump("cap-aer-root");
  EXPECT_FALSE(parse_pci_config(d.config.substr(0, 256)).has_acs.has_value());
  EXPECT_EQ(parse_pci_config(d.config.substr(0, 256)).port_type, "root port");
}

TEST(PciAcs, LoopsAndTruncationEndTheWalk) {
  std::string cfg(4096, '\0');
  cfg[0x06] = 0x10;                                   // capability list present
  cfg[0x34] = 0x40;
  cfg[0x40] = 0x01;                                   // power management, next -> itself
  cfg[0x41] = 0x40;
  cfg[0x100] = 0x01;                                  // AER, next -> 0x100 (a loop)
  cfg[0x102] = 0x01;
  cfg[0x103] = 0x10;
  auto info = parse_pci_config(cfg);
  EXPECT_EQ(info.port_type, "");
  EXPECT_FALSE(info.has_acs.value_or(true));
  cfg[0x100] = 0x0d;                                  // ACS header at the end of a truncated read
  auto cut = parse_pci_config(cfg.substr(0, 0x106));
  EXPECT_TRUE(cut.has_acs.value_or(false));
  EXPECT_FALSE(cut.acs_ctrl.has_value());
}

TEST(EtcHosts, DebianDefaultMapsTheHostNameToLoopback) {
  auto hosts = parse_etc_hosts(test::read_fixture("sysconfig/roots/planted/etc/hosts"));
  ASSERT_EQ(hosts.size(), 5u);
  auto mine = hosts_entries_for(hosts, "GPU-NODE-07");
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].address, "127.0.1.1");
  EXPECT_EQ(mine[0].line, 2);
  EXPECT_TRUE(is_loopback_address(mine[0].address));
  auto clean = parse_etc_hosts(test::read_fixture("sysconfig/roots/clean/etc/hosts"));
  auto there = hosts_entries_for(clean, "gpu-node-07");
  ASSERT_EQ(there.size(), 1u);
  EXPECT_EQ(there[0].address, "10.10.0.7");
  EXPECT_FALSE(is_loopback_address(there[0].address));
}

TEST(EtcHosts, CommentsGarbageAndAddressKinds) {
  auto h = parse_etc_hosts("# comment\n10.0.0.1 a b # c\nnot-an-ip x\n::1 localhost\nfe80::1%eth0 ll\n1.2.3.4\n\t\n");
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0].names, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(is_loopback_address("::1"));
  EXPECT_TRUE(is_loopback_address("0:0:0:0:0:0:0:1"));
  EXPECT_TRUE(is_loopback_address("127.255.0.3"));
  EXPECT_TRUE(is_loopback_address("::ffff:127.0.1.1"));
  EXPECT_FALSE(is_loopback_address("::2"));
  EXPECT_FALSE(is_loopback_address("128.0.0.1"));
  EXPECT_FALSE(is_loopback_address("fe80::1%eth0"));
  EXPECT_FALSE(is_loopback_address("garbage"));
  EXPECT_EQ(parse_nsswitch_hosts(test::read_fixture("sysconfig/roots/planted/etc/nsswitch.conf")), "files dns");
  EXPECT_EQ(parse_nsswitch_hosts("passwd: files\n"), "");
}

TEST(IommuCmdline, ModesFromTheKernelCommandLine) {
  // prometheus/procfs fixture: an Ubuntu desktop with nothing said about the IOMMU.
  auto plain = parse_iommu_cmdline("BOOT_IMAGE=/vmlinuz-5.11.0-22-generic root=UUID=456a0345-450d-4f7b-b7c9-43e3241d99ad ro quiet splash vt.handoff=7");
  EXPECT_EQ(cmdline_iommu_mode(plain), "");
  auto on = parse_iommu_cmdline(test::read_fixture("sysconfig/roots/planted/proc/cmdline"));
  EXPECT_EQ(on.intel_iommu, "on");
  EXPECT_EQ(cmdline_iommu_mode(on), "translated");
  EXPECT_EQ(cmdline_iommu_mode(parse_iommu_cmdline(test::read_fixture("sysconfig/roots/clean/proc/cmdline"))), "passthrough");
  EXPECT_EQ(cmdline_iommu_mode(parse_iommu_cmdline("amd_iommu=on iommu.passthrough=1")), "passthrough");
  EXPECT_EQ(cmdline_iommu_mode(parse_iommu_cmdline("intel_iommu=on,sm_on")), "translated");
  EXPECT_EQ(cmdline_iommu_mode(parse_iommu_cmdline("intel_iommu=off")), "off");
  EXPECT_EQ(cmdline_iommu_mode(parse_iommu_cmdline("iommu=pt iommu=nopt")), "translated");  // the last one wins
  EXPECT_EQ(parse_iommu_group_type("DMA-FQ\n"), "DMA-FQ");
  EXPECT_EQ(parse_iommu_group_type("identity"), "identity");
  EXPECT_EQ(parse_iommu_group_type("dma"), "");
}

TEST(GidTable, SysfsValuesAndTypes) {
  EXPECT_EQ(parse_gid("FE80:0000:0000:0000:0E42:A1FF:FE8E:0C4A\n"), "fe80:0000:0000:0000:0e42:a1ff:fe8e:0c4a");
  EXPECT_FALSE(parse_gid("fe80::1"));
  EXPECT_FALSE(parse_gid("fe80:0000:0000:0000:0e42:a1ff:fe8e:0c4a:0000"));
  EXPECT_TRUE(is_zero_gid("0000:0000:0000:0000:0000:0000:0000:0000"));
  EXPECT_EQ(gid_ipv4("0000:0000:0000:0000:0000:ffff:0a0a:0007"), "10.10.0.7");
  EXPECT_EQ(gid_ipv4("fe80:0000:0000:0000:0e42:a1ff:fe8e:0c4a"), "");
  // The kernel's gid_type_str (drivers/infiniband/core/cache.c).
  EXPECT_EQ(parse_gid_type("RoCE v2\n"), "RoCE v2");
  EXPECT_EQ(parse_gid_type("IB/RoCE v1\n"), "IB/RoCE v1");
  EXPECT_EQ(parse_gid_type("RoCE v3"), "");
}

TEST(GpuProcessStatus, ZombieOtherUserAndNamespace) {
  GpuProcessOwner z;
  apply_pid_status(z, test::read_fixture("sysconfig/roots/planted/proc/4243/status"));
  EXPECT_TRUE(z.alive);
  EXPECT_EQ(z.state, "Z (zombie)");
  EXPECT_EQ(z.uid, 1000);
  GpuProcessOwner o;
  apply_pid_status(o, test::read_fixture("sysconfig/roots/planted/proc/4300/status"));
  EXPECT_EQ(o.uid, 1001);
  EXPECT_EQ(o.name, "jupyter-lab");
  EXPECT_FALSE(status_in_child_pid_namespace(parse_pid_status("NSpid:\t4100\n")));
  EXPECT_TRUE(status_in_child_pid_namespace(parse_pid_status("NSpid:\t91234\t7\n")));
  EXPECT_FALSE(status_real_uid(parse_pid_status("Uid:\t-1\t0\t0\t0\n")).has_value());
}


// What the fuzz targets do, in miniature and deterministic: mutated real inputs never crash or hang
// the parsers (pointer loops, truncation, garbage bytes).
TEST(SysconfigParsers, MutatedInputsAreHandled) {
  std::mt19937 rng(20261201);
  std::vector<std::string> seeds{read_dump("cap-aer-root").config, read_dump("cap-multicast").config,
                                 test::read_fixture("sysconfig/roots/planted/etc/hosts"),
                                 test::read_fixture("sysconfig/roots/planted/proc/cmdline"),
                                 "0000:0000:0000:0000:0000:ffff:0a0a:0007\n"};
  int acs = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string in = seeds[static_cast<std::size_t>(i) % seeds.size()];
    int flips = 1 + static_cast<int>(rng() % 16);
    for (int k = 0; k < flips && !in.empty(); ++k) in[rng() % in.size()] = static_cast<char>(rng() & 0xff);
    if (rng() % 4 == 0) in.resize(rng() % (in.size() + 1));
    auto info = parse_pci_config(in);
    EXPECT_LE(info.size, 4096);
    if (info.has_acs.value_or(false)) ++acs;
    for (const auto& e : parse_etc_hosts(in)) (void)is_loopback_address(e.address);
    (void)cmdline_iommu_mode(parse_iommu_cmdline(in));
    if (auto g = parse_gid(in)) (void)gid_ipv4(*g);
  }
  EXPECT_GT(acs, 0);  // most mutations keep the Haswell port's ACS capability reachable
}

}  // namespace
}  // namespace plumb
