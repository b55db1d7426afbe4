// The CPU, memory, PSI, process and sysctl collectors on the fixture host trees, on an empty root, and on sysfs values holding garbage.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "collect/cpu.h"
#include "collect/memory.h"
#include "collect/process.h"
#include "collect/psi.h"
#include "collect/sysctl.h"
#include "../../test_util.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;

// A throw-away root with the given files.
struct TempRoot {
  fs::path dir;
  explicit TempRoot(const std::string& name) : dir(fs::path(::testing::TempDir()) / ("plumb_cpu_mem_" + name)) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempRoot() { fs::remove_all(dir); }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;
  void put(const std::string& rel, const std::string& text) const {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel, std::ios::binary) << text;
  }
  [[nodiscard]] HostRoot root() const { return HostRoot(dir.string()); }
};

TEST(ReadCpu, HealthyTwoSocketHost) {
  CpuFacts c = read_cpu(HostRoot(test::host_fixture("healthy")));
  ASSERT_TRUE(c.logical_cpus.has());
  EXPECT_EQ(*c.logical_cpus, 32);
  EXPECT_EQ(c.logical_cpus.source, "/sys/devices/system/cpu/online");
  EXPECT_EQ(c.physical_cores.value.value_or(0), 16);
  EXPECT_EQ(c.sockets.value.value_or(0), 2);
  ASSERT_TRUE(c.model.has());
  EXPECT_NE(c.model->find("Xeon"), std::string::npos);
  ASSERT_TRUE(c.numa_nodes.has());
  ASSERT_EQ(c.numa_nodes->size(), 2u);
  EXPECT_EQ((*c.numa_nodes)[1].cpulist, "8-15,24-31");
  EXPECT_EQ((*c.numa_nodes)[1].cpus, 16);
  ASSERT_TRUE(c.governors.has());
  EXPECT_EQ(c.governors->size(), 32u);
  EXPECT_EQ(c.governors->front().governor, "performance");
  EXPECT_EQ(c.scaling_driver.value.value_or(""), "intel_pstate");
}

TEST(ReadCpu, VmWithoutCpufreqSaysWhy) {
  CpuFacts c = read_cpu(HostRoot(test::host_fixture("docker-v1")));
  EXPECT_EQ(c.logical_cpus.value.value_or(0), 16);
  EXPECT_FALSE(c.governors.has());
  EXPECT_NE(c.governors.why().find("cpufreq"), std::string::npos);
}

TEST(ReadCpu, EmptyRootGivesReasonsNotZeros) {
  TempRoot t("empty_cpu");
  CpuFacts c = read_cpu(t.root());
  EXPECT_TRUE(c.collected);
  EXPECT_FALSE(c.logical_cpus.has());
  EXPECT_FALSE(c.logical_cpus.missing.empty());
  EXPECT_FALSE(c.model.has());
  EXPECT_FALSE(c.numa_nodes.has());
  EXPECT_FALSE(c.governors.has());
}

TEST(ReadCpu, GarbageSysfsValues) {
  TempRoot t("garbage_cpu");
  t.put("proc/cpuinfo", "processor : 0\nmodel name : Test CPU\n\nprocessor : 1\n");
  t.put("sys/devices/system/cpu/online", "zero-one\n");
  t.put("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "\n");
  t.put("sys/devices/system/cpu/cpu0/topology/core_id", "garbage\n");
  t.put("sys/devices/system/cpu/cpu0/topology/physical_package_id", "0\n");
  t.put("sys/devices/system/node/node0/cpulist", "0-x\n");
  CpuFacts c = read_cpu(t.root());
  // online is unreadable: fall back to cpuinfo's records, with that source.
  EXPECT_EQ(c.logical_cpus.value.value_or(0), 2);
  EXPECT_EQ(c.logical_cpus.source, "/proc/cpuinfo");
  EXPECT_FALSE(c.physical_cores.has());
  EXPECT_FALSE(c.governors.has());
  ASSERT_TRUE(c.numa_nodes.has());
  EXPECT_EQ((*c.numa_nodes)[0].cpus, 0);
}

TEST(ReadCpu, TopologyFromSysfsWhenCpuinfoHasNone) {
  TempRoot t("arm_topology");
  t.put("proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 50.00\n\nprocessor\t: 1\nBogoMIPS\t: 50.00\n");
  t.put("sys/devices/system/cpu/online", "0-1\n");
  for (int c : {0, 1}) {
    std::string d = "sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
    t.put(d + "core_id", std::to_string(c) + "\n");
    t.put(d + "physical_package_id", "0\n");
  }
  CpuFacts c = read_cpu(t.root());
  EXPECT_EQ(c.physical_cores.value.value_or(0), 2);
  EXPECT_EQ(c.sockets.value.value_or(0), 1);
  EXPECT_EQ(c.physical_cores.source, "/sys/devices/system/cpu/cpu*/topology");
}

TEST(ReadMemory, SwapAndThpOnMisconfiguredHost) {
  MemoryFacts m = read_memory(HostRoot(test::host_fixture("nvme-misconfigured")));
  EXPECT_EQ(m.mem_total_bytes.value.value_or(0), 263979008ull * 1024);
  EXPECT_EQ(m.swap_total_bytes.value.value_or(0), 8388604ull * 1024);
  ASSERT_TRUE(m.swaps.has());
  ASSERT_EQ(m.swaps->size(), 1u);
  EXPECT_EQ((*m.swaps)[0].filename, "/swap.img");
  EXPECT_EQ(m.thp_enabled.value.value_or(""), "always");
  EXPECT_EQ(m.thp_defrag.value.value_or(""), "always");
}

TEST(ReadMemory, OldKernelFallsBackForAvailable) {
  TempRoot t("old_meminfo");
  t.put("proc/meminfo", test::read_fixture("procfs/procfs-meminfo-no-memavailable.txt"));
  MemoryFacts m = read_memory(t.root());
  ASSERT_TRUE(m.mem_available_bytes.has());
  EXPECT_NE(m.mem_available_bytes.source.find("MemFree+Buffers+Cached"), std::string::npos);
  EXPECT_FALSE(m.swaps.has());  // no /proc/swaps in this root
  EXPECT_FALSE(m.thp_enabled.has());
}

TEST(ReadMemory, GarbageMeminfoLeavesValuesMissing) {
  TempRoot t("garbage_meminfo");
  t.put("proc/meminfo", "MemTotal: lots kB\n\xff\xfe\n");
  t.put("sys/kernel/mm/transparent_hugepage/enabled", "always madvise never\n");
  MemoryFacts m = read_memory(t.root());
  EXPECT_FALSE(m.mem_total_bytes.has());
  EXPECT_NE(m.mem_total_bytes.why().find("MemTotal"), std::string::npos);
  EXPECT_FALSE(m.thp_enabled.has());
}

// The features files below are those of a KVM guest's virtio devices (Linux 6.18: one '0'/'1' per
// feature bit, bit 0 first): its balloon (device 0x0005) offers bit 5, VIRTIO_BALLOON_F_REPORTING.
constexpr const char* kBalloonFeatures =
    "01100101000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000";
constexpr const char* kBlockFeatures =
    "00100010011001000000000000000100100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000";

TEST(FreePageReporting, ABalloonOfferingTheReportingBit) {
  TempRoot t("fpr_yes");
  t.put("sys/bus/virtio/devices/virtio0/device", "0x0005\n");
  t.put("sys/bus/virtio/devices/virtio0/features", std::string(kBalloonFeatures) + "\n");
  t.put("sys/bus/virtio/devices/virtio1/device", "0x0002\n");
  t.put("sys/bus/virtio/devices/virtio1/features", std::string(kBlockFeatures) + "\n");
  EXPECT_EQ(free_page_reporting_device(t.root()), std::optional<std::string>("virtio0"));
}

TEST(FreePageReporting, NoneWithoutABalloonOrWithoutTheBit) {
  TempRoot none("fpr_none");
  EXPECT_EQ(free_page_reporting_device(none.root()), std::nullopt);  // no virtio bus: bare metal
  TempRoot no_bit("fpr_no_bit");
  std::string features = kBalloonFeatures;
  features[5] = '0';  // a balloon that only inflates and deflates
  no_bit.put("sys/bus/virtio/devices/virtio0/device", "0x0005\n");
  no_bit.put("sys/bus/virtio/devices/virtio0/features", features + "\n");
  EXPECT_EQ(free_page_reporting_device(no_bit.root()), std::nullopt);
  TempRoot other("fpr_other_device");  // bit 5 of another device means something else
  std::string block = kBlockFeatures;
  block[5] = '1';
  other.put("sys/bus/virtio/devices/virtio1/device", "0x0002\n");
  other.put("sys/bus/virtio/devices/virtio1/features", block + "\n");
  EXPECT_EQ(free_page_reporting_device(other.root()), std::nullopt);
}

TEST(FreePageReporting, GarbageFilesAreNotABalloon) {
  TempRoot t("fpr_garbage");
  t.put("sys/bus/virtio/devices/virtio0/device", "0x0005 \xff\n");
  t.put("sys/bus/virtio/devices/virtio0/features", std::string(kBalloonFeatures) + "\n");
  t.put("sys/bus/virtio/devices/virtio1/device", "0x0005\n");
  t.put("sys/bus/virtio/devices/virtio1/features", "01\n");  // too short to have bit 5
  t.put("sys/bus/virtio/devices/virtio2/device", "0x0005\n");  // no features file
  t.put("sys/bus/virtio/devices/virtio3/features", std::string(kBalloonFeatures));  // no device file
  EXPECT_EQ(free_page_reporting_device(t.root()), std::nullopt);
}

TEST(ReadPressure, PresentAndAbsent) {
  PressureFacts p = read_pressure(HostRoot(test::host_fixture("oom-xid")));
  ASSERT_TRUE(p.memory.has());
  EXPECT_DOUBLE_EQ(p.memory->some->avg60, 26.85);
  PressureFacts none = read_pressure(HostRoot(test::host_fixture("docker-v1")));
  EXPECT_FALSE(none.cpu.has());
  EXPECT_NE(none.cpu.why().find("CONFIG_PSI"), std::string::npos);
  TempRoot t("garbage_psi");
  t.put("proc/pressure/io", "some avg10=nan avg60=1\n");
  EXPECT_EQ(read_pressure(t.root()).io.why(), "unreadable PSI format");
}

TEST(ReadProcess, EnvironLimitsStatus) {
  Context ctx;
  ctx.root = HostRoot(test::host_fixture("docker-v1"));
  ProcessFacts p = read_process(ctx);
  ASSERT_TRUE(p.environ.has());
  EXPECT_EQ(p.environ->at("OMP_NUM_THREADS"), "32");
  EXPECT_EQ(p.environ.source, "/proc/self/environ");
  ASSERT_TRUE(p.memlock.has());
  EXPECT_FALSE(p.memlock->soft.has_value());  // unlimited
  EXPECT_EQ(p.nofile->soft.value_or(0), 1048576u);
  EXPECT_EQ(p.threads.value.value_or(0), 71);
  EXPECT_EQ(p.cpus_allowed.value.value_or(0), 16);
  EXPECT_EQ(p.vm_rss_bytes.value.value_or(0), 12582912ull * 1024);
}

TEST(ReadProcess, OtherPidAndMissingFiles) {
  TempRoot t("pid_root");
  t.put("proc/77/status", "Name:\tkthreadd\nThreads:\t1\n");  // kernel thread: no VmRSS, no environ
  Context ctx;
  ctx.root = t.root();
  ctx.pid = 77;
  ProcessFacts p = read_process(ctx);
  EXPECT_EQ(p.name.value.value_or(""), "kthreadd");
  EXPECT_FALSE(p.vm_rss_bytes.has());
  EXPECT_FALSE(p.environ.has());
  EXPECT_EQ(p.environ.source, "/proc/77/environ");
  EXPECT_FALSE(p.memlock.has());
  EXPECT_FALSE(p.cpus_allowed.has());
}

TEST(ReadSysctl, IntegerAndGarbage) {
  TempRoot t("sysctl");
  t.put("proc/sys/vm/swappiness", "60\n");
  t.put("proc/sys/kernel/numa_balancing", "on\n");
  EXPECT_EQ(read_sysctl_int(t.root(), "vm.swappiness").value.value_or(-1), 60);
  auto nb = read_sysctl_int(t.root(), "kernel.numa_balancing");
  EXPECT_FALSE(nb.has());
  EXPECT_NE(nb.why().find("not an integer"), std::string::npos);
  EXPECT_FALSE(read_sysctl_int(t.root(), "kernel.nothing").has());
}

}  // namespace
}  // namespace plumb
