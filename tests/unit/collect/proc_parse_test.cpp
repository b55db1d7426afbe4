// /proc parsers of plumb watch on real samples (prometheus/procfs fixtures, Apache-2.0) and garbage.
#include <gtest/gtest.h>

#include "../../test_util.h"
#include "collect/memory.h"
#include "collect/psi.h"
#include "collect/proc_parse.h"

namespace plumb::watch {
namespace {

std::string host(const std::string& rel) { return test::read_fixture("watch/procfs-host/" + rel); }

TEST(ParseProcStat, ReadsAggregateAndEveryCore) {
  ProcStat s = parse_proc_stat(host("proc/stat"));
  ASSERT_TRUE(s.all.has_value());
  EXPECT_EQ(s.all->user, 301854u);
  EXPECT_EQ(s.all->idle, 8979004u);
  EXPECT_EQ(s.all->iowait, 3552u);
  EXPECT_EQ(s.all->total(), 301854u + 612 + 111922 + 8979004 + 3552 + 2 + 3944 + 0);
  ASSERT_EQ(s.cores.size(), 8u);
  EXPECT_EQ(s.cores[7].first, 7);
  EXPECT_EQ(s.cores[7].second.nice, 268u);
}

TEST(ParseProcStat, OldKernelWithoutIowaitAndGarbage) {
  ProcStat s = parse_proc_stat("cpu 10 0 5 100\ncpu0 10 0 5 100\ncpux 1 2 3 4\ncpu1 a b c d\nintr 1 2\n");
  ASSERT_TRUE(s.all);
  EXPECT_EQ(s.all->iowait, 0u);
  EXPECT_EQ(s.cores.size(), 1u);
  EXPECT_FALSE(parse_proc_stat("").all);
  EXPECT_FALSE(parse_proc_stat("cpu\n").all);
}

// meminfo and PSI come from the collectors' parsers (collect/memory.h, psi.h): these check that
// they give what the watch needs on its fixture.
TEST(WatchMeminfo, UsesMemAvailableOrEstimatesIt) {
  auto kv = parse_meminfo(host("proc/meminfo"));
  ASSERT_TRUE(kv.count("MemTotal"));
  EXPECT_EQ(kv["MemTotal"], 15666184ull * 1024);
  // This older-kernel sample has no MemAvailable: MemFree + Buffers + Cached.
  EXPECT_FALSE(kv.count("MemAvailable"));
  auto available = meminfo_available(kv);
  ASSERT_TRUE(available);
  EXPECT_EQ(*available, kv["MemFree"] + kv["Buffers"] + kv["Cached"]);
  EXPECT_EQ(meminfo_available(parse_meminfo("MemTotal: 100 kB\nMemAvailable: 40 kB\n")), 40u * 1024);
  EXPECT_FALSE(meminfo_available(parse_meminfo("garbage")));
  EXPECT_FALSE(meminfo_available(parse_meminfo("MemFree: 1 kB\nBuffers: 2 kB\n")));  // no Cached: no estimate
}

TEST(WatchPressure, SomeOnlyAndSomeFull) {
  auto cpu = parse_pressure(host("proc/pressure/cpu"));
  ASSERT_TRUE(cpu && cpu->some);
  EXPECT_FALSE(cpu->full);  // pre-5.13 system cpu file
  EXPECT_EQ(cpu->some->total_us, 15u);
  EXPECT_DOUBLE_EQ(cpu->some->avg300, 3.85);
  auto io = parse_pressure(host("proc/pressure/io"));
  ASSERT_TRUE(io && io->full);
  EXPECT_EQ(io->full->total_us, 25u);
  EXPECT_FALSE(parse_pressure("some avg10=1 avg60=2 avg300=3\n"));  // no total: unusable for rates
}

TEST(ParseDiskstats, ReadsAllFieldVariantsAndKeepsWholeDisks) {
  auto d = parse_diskstats(host("proc/diskstats"));
  ASSERT_GT(d.size(), 40u);
  auto it = std::find_if(d.begin(), d.end(), [](const auto& x) { return x.name == "nvme0n1"; });
  ASSERT_NE(it, d.end());
  EXPECT_EQ(it->sectors_read, 4643973u);
  EXPECT_EQ(it->sectors_written, 39451633u);
  std::vector<std::string> names;
  for (const auto& x : d) names.push_back(x.name);
  auto whole = whole_disks(names);
  auto has = [&](const char* n) { return std::find(whole.begin(), whole.end(), n) != whole.end(); };
  EXPECT_TRUE(has("sda"));
  EXPECT_TRUE(has("nvme0n1"));
  EXPECT_TRUE(has("mmcblk0"));
  EXPECT_TRUE(has("dm-0"));
  EXPECT_FALSE(has("sda1"));
  EXPECT_FALSE(has("nvme0n1p1"));
  EXPECT_FALSE(has("mmcblk0p2"));
  EXPECT_FALSE(has("loop0"));
  EXPECT_FALSE(has("ram15"));
  EXPECT_FALSE(has("sr0"));
}

TEST(ParseNetDev, SkipsHeadersAndReadsBytes) {
  auto n = parse_net_dev(host("proc/net/dev"));
  ASSERT_EQ(n.size(), 4u);
  auto it = std::find_if(n.begin(), n.end(), [](const auto& x) { return x.name == "eth0"; });
  ASSERT_NE(it, n.end());
  EXPECT_EQ(it->rx_bytes, 874354587u);
  EXPECT_EQ(it->tx_bytes, 563352563u);
  EXPECT_TRUE(parse_net_dev("eth0: 1 2 3\n").empty());
}

TEST(ParsePidStat, HandlesParenthesesAndSpacesInComm) {
  auto p = parse_pid_stat(host("proc/26231/stat"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->state, 'R');
  EXPECT_EQ(p->utime_ticks, 1677u);
  EXPECT_EQ(p->stime_ticks, 44u);
  EXPECT_EQ(p->num_threads, 1);
  EXPECT_EQ(p->rss_pages, 1981u);
  auto odd = parse_pid_stat(host("proc/584/stat"));  // comm "(a b ) ( c d) "
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->state, 'R');
  EXPECT_FALSE(parse_pid_stat("123 (x) R 1 2"));
  EXPECT_FALSE(parse_pid_stat("no parenthesis"));
}

TEST(ParsePidStatus, RssAndThreads) {
  auto s = parse_pid_status(host("proc/26231/status"));
  ASSERT_TRUE(s.rss_bytes);
  EXPECT_EQ(*s.rss_bytes, 6716u * 1024);
  EXPECT_EQ(s.threads, 1);
  EXPECT_FALSE(parse_pid_status("VmRSS: lots\n").rss_bytes);
}

}  // namespace
}  // namespace plumb::watch
