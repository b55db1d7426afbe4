// Parsers of /proc and sysfs sources (cpuinfo, meminfo, limits, status, PSI, swaps, sysctls, THP) on real samples (tests/fixtures/procfs/, origins in tests/fixtures/SOURCES.md) and garbage.
#include <gtest/gtest.h>

#include "collect/cpu.h"
#include "collect/memory.h"
#include "collect/pid_status.h"
#include "collect/process.h"
#include "collect/psi.h"
#include "collect/sysctl.h"
#include "../../test_util.h"

namespace plumb {
namespace {

std::string sample(const std::string& name) { return test::read_fixture("procfs/" + name); }

TEST(ParseCpuinfo, RealLaptopSampleGivesModelCoresAndSockets) {
  auto info = parse_cpuinfo(sample("procfs-cpuinfo-i7-8650u.txt"));
  EXPECT_EQ(info.processors, 8);
  ASSERT_TRUE(info.model.has_value());
  EXPECT_EQ(*info.model, "Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz");
  ASSERT_TRUE(info.physical_cores.has_value());
  EXPECT_EQ(*info.physical_cores, 4);  // 8 threads on 4 cores (core id 0..3)
  ASSERT_TRUE(info.sockets.has_value());
  EXPECT_EQ(*info.sockets, 1);
}

TEST(ParseCpuinfo, ArmStyleWithoutTopologyLeavesCountsUnknown) {
  auto info = parse_cpuinfo("processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n\nprocessor\t: 1\nBogoMIPS\t: 50.00\n");
  EXPECT_EQ(info.processors, 2);
  EXPECT_FALSE(info.physical_cores.has_value());
  EXPECT_FALSE(info.sockets.has_value());
  EXPECT_FALSE(info.model.has_value());
}

TEST(ParseCpuinfo, GarbageIsHarmless) {
  auto info = parse_cpuinfo("processor : x\nphysical id : -3\ncore id : 99999999999999999999\n:::\n\0\n");
  EXPECT_EQ(info.processors, 0);
  EXPECT_FALSE(info.sockets.has_value());
}

TEST(ParseMeminfo, ModernSampleInBytes) {
  auto kv = parse_meminfo(sample("telegraf-meminfo-16G.txt"));
  EXPECT_EQ(kv.at("MemTotal"), 16201888ull * 1024);
  EXPECT_EQ(kv.at("MemAvailable"), 14221924ull * 1024);
  EXPECT_EQ(kv.at("SwapTotal"), 4194300ull * 1024);
  EXPECT_EQ(kv.at("HugePages_Total"), 0u);  // unit-less row stays a count
  EXPECT_EQ(kv.at("Hugepagesize"), 2048ull * 1024);
}

TEST(ParseMeminfo, OldKernelWithoutMemAvailable) {
  auto kv = parse_meminfo(sample("procfs-meminfo-no-memavailable.txt"));
  EXPECT_EQ(kv.at("MemTotal"), 15666184ull * 1024);
  EXPECT_EQ(kv.count("MemAvailable"), 0u);
}

TEST(ParseMeminfo, GarbageRowsAreDropped) {
  auto kv = parse_meminfo("MemTotal: lots kB\nMemFree: 12 MB\nX: 99999999999999999999 kB\nOk: 7 kB\n:\n");
  EXPECT_EQ(kv.size(), 1u);
  EXPECT_EQ(kv.at("Ok"), 7u * 1024);
}

TEST(ParseSwaps, RealSample) {
  auto rows = parse_swaps(sample("procfs-swaps.txt"));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].filename, "/dev/dm-2");
  EXPECT_EQ(rows[0].type, "partition");
  EXPECT_EQ(rows[0].size_bytes, 131068ull * 1024);
  EXPECT_EQ(rows[0].used_bytes, 176ull * 1024);
  EXPECT_EQ(rows[0].priority, -2);
  EXPECT_TRUE(parse_swaps("Filename Type Size Used Priority\n").empty());
  EXPECT_TRUE(parse_swaps("/x file big 1 -2\n").empty());
}

TEST(ParseThp, BracketedChoice) {
  EXPECT_EQ(parse_bracketed_choice("always [madvise] never").value_or(""), "madvise");
  EXPECT_EQ(parse_bracketed_choice("always defer defer+madvise [madvise] never").value_or(""), "madvise");
  EXPECT_FALSE(parse_bracketed_choice("always madvise never").has_value());
  EXPECT_FALSE(parse_bracketed_choice("[]").has_value());
  EXPECT_FALSE(parse_bracketed_choice("[always").has_value());
}

TEST(ParsePressure, RealSamples) {
  auto cpu = parse_pressure(sample("procfs-pressure-cpu.txt"));
  ASSERT_TRUE(cpu.has_value());
  ASSERT_TRUE(cpu->some.has_value());
  EXPECT_DOUBLE_EQ(cpu->some->avg10, 0.10);
  EXPECT_DOUBLE_EQ(cpu->some->avg300, 3.85);
  EXPECT_EQ(cpu->some->total_us, 15u);
  EXPECT_FALSE(cpu->full.has_value());  // pre-5.13 system cpu file: `some` only
  auto io = parse_pressure(sample("procfs-pressure-io.txt"));
  ASSERT_TRUE(io.has_value());
  ASSERT_TRUE(io->full.has_value());
  EXPECT_DOUBLE_EQ(io->full->avg60, 3.00);
  EXPECT_EQ(io->full->total_us, 25u);
}

TEST(ParsePressure, GarbageGivesNothing) {
  EXPECT_FALSE(parse_pressure("").has_value());
  EXPECT_FALSE(parse_pressure("some avg10=x avg60=1 avg300=1 total=1").has_value());
  EXPECT_FALSE(parse_pressure("some avg10=1 avg60=1 avg300=1").has_value());
  EXPECT_FALSE(parse_pressure("some avg10=500 avg60=1 avg300=1 total=1").has_value());
  EXPECT_FALSE(parse_pressure("full avg10=1 avg60=1 avg300=1 total=1").has_value());
}

TEST(ParseEnviron, RealSampleNulSeparated) {
  auto env = parse_environ(sample("procfs-environ.bin"));
  EXPECT_EQ(env.at("HOSTNAME"), "cd24e11f73a5");
  EXPECT_EQ(env.at("GOPATH"), "/go");
  EXPECT_EQ(env.at("HOME"), "/root");
  EXPECT_EQ(env.size(), 6u);
}

TEST(ParseEnviron, KeepsEqualsInValuesAndFirstDefinition) {
  using namespace std::string_literals;
  auto env = parse_environ("A=1=2\0=nokey\0noequals\0A=3\0B=\0"s);
  EXPECT_EQ(env.at("A"), "1=2");
  EXPECT_EQ(env.at("B"), "");
  EXPECT_EQ(env.size(), 2u);
}

TEST(ParseLimits, RealSample) {
  auto rows = parse_limits(sample("procfs-limits.txt"));
  const auto& ml = rows.at("Max locked memory");
  EXPECT_EQ(ml.soft.value_or(0), 18446744073708503040ull);
  EXPECT_EQ(ml.unit, "bytes");
  const auto& nofile = rows.at("Max open files");
  EXPECT_EQ(nofile.soft.value_or(0), 2048u);
  EXPECT_EQ(nofile.hard.value_or(0), 4096u);
  EXPECT_FALSE(rows.at("Max cpu time").soft.has_value());  // unlimited
  EXPECT_TRUE(rows.at("Max nice priority").unit.empty());
  EXPECT_EQ(rows.size(), 16u);
  auto small = parse_limits(sample("procfs-limits-26232.txt"));
  EXPECT_EQ(small.at("Max locked memory").soft.value_or(0), 65536u);
}

TEST(ParseLimits, GarbageRowsAreDropped) {
  auto rows = parse_limits("Max locked memory  lots  lots bytes\n42 1 2\nMax open files 1 2 files extra junk\n");
  EXPECT_TRUE(rows.empty());
}

TEST(ParseStatus, RealSample) {
  auto st = parse_pid_status(sample("procfs-status.txt"));
  const auto& kv = st.fields;
  EXPECT_EQ(kv.at("Name"), "prometheus");
  EXPECT_EQ(kv.at("Threads"), "1");
  EXPECT_EQ(kv.at("VmRSS"), "6716 kB");
  EXPECT_EQ(kv.at("Cpus_allowed_list"), "0-7");
  EXPECT_EQ(st.threads, 1);
  EXPECT_EQ(st.rss_bytes, 6716u * 1024);
  auto odd = parse_pid_status("Threads:\tmany\nVmRSS:\t12 MB\nName:\tx\n");
  EXPECT_FALSE(odd.threads);
  EXPECT_FALSE(odd.rss_bytes);  // only kB is the kernel's unit
  EXPECT_EQ(odd.fields.at("Name"), "x");
}

TEST(ParseSysctl, PathFromName) {
  EXPECT_EQ(sysctl_path("kernel.numa_balancing"), "/proc/sys/kernel/numa_balancing");
  EXPECT_EQ(sysctl_path("vm.swappiness"), "/proc/sys/vm/swappiness");
}

}  // namespace
}  // namespace plumb
