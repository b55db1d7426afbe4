// cgroup parsers on real files (telegraf's cgroup v2 sample) and the collector on fixture trees.
#include <gtest/gtest.h>

#include "collect/cgroup.h"
#include "core/cpulist.h"
#include "../../scratch_root.h"
#include "../../test_util.h"

namespace plumb {
namespace {

using test::ScratchRoot;

TEST(ProcCgroup, ParsesV2V1AndDeletedLines) {
  auto v2 = parse_proc_cgroup("0::/system.slice/docker-abc.scope\n");
  ASSERT_EQ(v2.size(), 1u);
  EXPECT_EQ(v2[0].hierarchy, "0");
  EXPECT_TRUE(v2[0].controllers.empty());
  EXPECT_EQ(v2[0].path, "/system.slice/docker-abc.scope");

  auto v1 = parse_proc_cgroup("5:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n0::/gone (deleted)\n");
  ASSERT_EQ(v1.size(), 3u);
  EXPECT_EQ(v1[0].controllers, (std::vector<std::string>{"cpu", "cpuacct"}));
  EXPECT_EQ(v1[1].controllers, (std::vector<std::string>{"name=systemd"}));
  EXPECT_EQ(v1[2].path, "/gone");
}

TEST(ProcCgroup, IgnoresGarbage) {
  EXPECT_TRUE(parse_proc_cgroup("garbage\nx:y:z\n::\n12:memory\n").empty());
  EXPECT_TRUE(parse_proc_cgroup(std::string("\0\xff:\n", 4)).empty());
}

TEST(CgroupMemoryLimit, ReadsBytesMaxAndV1Unlimited) {
  auto real = parse_memory_limit(test::read_fixture("cgroup/telegraf-v2/memory.max"));
  ASSERT_TRUE(real.ok());
  EXPECT_EQ(real->value, std::optional<std::uint64_t>(103079215104ull));  // 96 GiB
  auto max = parse_memory_limit("max\n");
  ASSERT_TRUE(max.ok());
  EXPECT_FALSE(max->value.has_value());
  auto v1 = parse_memory_limit("9223372036854771712\n");  // v1 "unlimited"
  ASSERT_TRUE(v1.ok());
  EXPECT_FALSE(v1->value.has_value());
  auto bad = parse_memory_limit("garbage");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("garbage"), std::string::npos);
  EXPECT_FALSE(parse_memory_limit("").ok());
}

TEST(CgroupCpuMax, QuotaOverPeriod) {
  auto real = parse_cpu_max(test::read_fixture("cgroup/telegraf-v2/cpu.max"));  // "4800000 100000"
  ASSERT_TRUE(real.ok());
  ASSERT_TRUE(real->has_value());
  EXPECT_DOUBLE_EQ(**real, 48.0);
  auto unl = parse_cpu_max("max 100000");
  ASSERT_TRUE(unl.ok());
  EXPECT_FALSE(unl->has_value());
  auto half = parse_cpu_max("50000");
  ASSERT_TRUE(half.ok());
  EXPECT_DOUBLE_EQ(**half, 0.5);
  EXPECT_FALSE(parse_cpu_max("garbage 100000").ok());
  EXPECT_FALSE(parse_cpu_max("100000 0").ok());
  EXPECT_FALSE(parse_cpu_max("1 2 3").ok());
}

TEST(CgroupCfsQuota, V1QuotaAndUnlimited) {
  auto two = parse_cfs_quota("200000\n", "100000\n");
  ASSERT_TRUE(two.ok());
  EXPECT_DOUBLE_EQ(**two, 2.0);
  auto unl = parse_cfs_quota("-1", "100000");
  ASSERT_TRUE(unl.ok());
  EXPECT_FALSE(unl->has_value());
  EXPECT_FALSE(parse_cfs_quota("lots", "100000").ok());
  EXPECT_FALSE(parse_cfs_quota("200000", "0").ok());
}

TEST(CgroupFlatKeyed, ReadsMemoryEvents) {
  auto kv = parse_flat_keyed(test::read_fixture("cgroup/telegraf-v2/memory.events"));
  EXPECT_EQ(kv.size(), 6u);
  EXPECT_EQ(kv.at("oom_kill"), 0u);
  auto v1 = parse_flat_keyed("oom_kill_disable 0\nunder_oom 0\noom_kill 7\nbad line here\nx notanumber\n");
  EXPECT_EQ(v1.at("oom_kill"), 7u);
  EXPECT_EQ(v1.count("x"), 0u);
}

TEST(CgroupCpuList, CountsRanges) {
  EXPECT_EQ(parse_cpulist(test::read_fixture("cgroup/telegraf-v2/cpuset.cpus.effective"))->size(), 96u);
  EXPECT_EQ(parse_cpulist("0-4,6,8-10\n")->size(), 9u);
  EXPECT_EQ(parse_cpulist("7")->size(), 1u);
  EXPECT_TRUE(parse_cpulist("")->empty());  // read_cpuset skips an empty (inherited) list
  EXPECT_FALSE(parse_cpulist("5-3").ok());
  EXPECT_FALSE(parse_cpulist("0-3,,5").ok());
  EXPECT_FALSE(parse_cpulist("a-b").ok());
  EXPECT_FALSE(parse_cpulist("0-99999999999").ok());
}

Context fixture_ctx(const std::string& root) {
  Context c;
  c.root = HostRoot(root);
  return c;
}

TEST(ReadCgroup, TelegrafV2DirectoryAsTheTargetsCgroup) {
  ScratchRoot r("cg_telegraf");
  r.write("proc/self/cgroup", "0::/kubepods.slice/pod1.slice\n");
  r.write("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
  r.copy_dir(test::fixture("cgroup/telegraf-v2"), "sys/fs/cgroup/kubepods.slice/pod1.slice");
  CgroupFacts cg = read_cgroup(fixture_ctx(r.path()));
  ASSERT_TRUE(cg.version.has());
  EXPECT_EQ(*cg.version, 2);
  ASSERT_TRUE(cg.memory_limit_bytes.has());
  EXPECT_EQ(*cg.memory_limit_bytes, 103079215104ull);
  EXPECT_EQ(cg.memory_limit_bytes.source, "/sys/fs/cgroup/kubepods.slice/pod1.slice/memory.max");
  EXPECT_DOUBLE_EQ(*cg.cpu_quota_cpus, 48.0);
  EXPECT_EQ(*cg.cpuset_count, 96);
  EXPECT_DOUBLE_EQ(*cg.effective_cpus, 48.0);  // min(quota 48, cpuset 96)
  EXPECT_EQ(*cg.oom_kill_events, 0u);
  EXPECT_EQ(*cg.memory_current_bytes, 13071106048ull);
}

TEST(ReadCgroup, HealthyV2Unlimited) {
  CgroupFacts cg = read_cgroup(fixture_ctx(test::host_fixture("healthy")));
  EXPECT_EQ(*cg.version, 2);
  EXPECT_FALSE(cg.memory_limit_bytes.has());
  ASSERT_TRUE(cg.memory_limit_raw.has());
  EXPECT_EQ(*cg.memory_limit_raw, "max");
  EXPECT_NE(cg.memory_limit_bytes.why().find("unlimited"), std::string::npos);
  EXPECT_FALSE(cg.cpu_quota_cpus.has());
  EXPECT_DOUBLE_EQ(*cg.effective_cpus, 32.0);
  EXPECT_EQ(*cg.oom_kill_events, 0u);
}

TEST(ReadCgroup, LimitOnAnAncestorAndOomKills) {
  CgroupFacts cg = read_cgroup(fixture_ctx(test::host_fixture("nvme-misconfigured")));
  EXPECT_EQ(*cg.path, "/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0");
  ASSERT_TRUE(cg.memory_limit_bytes.has());
  EXPECT_EQ(*cg.memory_limit_bytes, 16ull << 30);
  EXPECT_EQ(cg.memory_limit_bytes.source, "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_4242/memory.max");
  EXPECT_EQ(*cg.oom_kill_events, 3u);
  EXPECT_EQ(*cg.oom_events, 3u);
  EXPECT_DOUBLE_EQ(*cg.effective_cpus, 32.0);  // cpuset 0-31, no quota (consistent with the affinity mask)
}

TEST(ReadCgroup, DockerV1QuotaAndCpuset) {
  CgroupFacts cg = read_cgroup(fixture_ctx(test::host_fixture("docker-v1")));
  EXPECT_EQ(*cg.version, 1);
  EXPECT_EQ(*cg.memory_limit_bytes, 64ull << 30);
  EXPECT_EQ(cg.memory_limit_bytes.source, "/sys/fs/cgroup/memory/memory.limit_in_bytes");
  EXPECT_DOUBLE_EQ(*cg.cpu_quota_cpus, 2.0);
  EXPECT_EQ(*cg.cpu_quota_raw, "200000/100000");
  EXPECT_EQ(*cg.cpuset_count, 16);
  EXPECT_DOUBLE_EQ(*cg.effective_cpus, 2.0);
  EXPECT_EQ(cg.effective_cpus.source, "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us");
  EXPECT_EQ(*cg.oom_kill_events, 0u);
  EXPECT_FALSE(cg.oom_events.has());
}

TEST(ReadCgroup, RootCgroupHasNoLimitFiles) {
  ScratchRoot r("cg_root");
  r.write("proc/self/cgroup", "0::/\n");
  r.write("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
  r.write("sys/fs/cgroup/cpuset.cpus.effective", "0-63\n");
  CgroupFacts cg = read_cgroup(fixture_ctx(r.path()));
  EXPECT_TRUE(cg.memory_limit_raw.has());
  EXPECT_FALSE(cg.memory_limit_bytes.has());
  EXPECT_FALSE(cg.oom_kill_events.has());
  EXPECT_NE(cg.oom_kill_events.why().find("root cgroup"), std::string::npos);
  EXPECT_DOUBLE_EQ(*cg.effective_cpus, 64.0);
}

TEST(ReadCgroup, GarbageValuesGiveReasonsNotNumbers) {
  ScratchRoot r("cg_garbage");
  r.write("proc/self/cgroup", "0::/job\n");
  r.write("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  r.write("sys/fs/cgroup/job/memory.max", "garbage\n");
  r.write("sys/fs/cgroup/job/cpu.max", "lots of cpus\n");
  r.write("sys/fs/cgroup/job/memory.events", "oom_kill many\n");
  r.write("sys/fs/cgroup/job/cpuset.cpus.effective", "0-x\n");
  CgroupFacts cg = read_cgroup(fixture_ctx(r.path()));
  EXPECT_FALSE(cg.memory_limit_bytes.has());
  EXPECT_FALSE(cg.memory_limit_raw.has());
  EXPECT_NE(cg.memory_limit_raw.why().find("not a byte count"), std::string::npos);
  EXPECT_FALSE(cg.cpu_quota_cpus.has());
  EXPECT_FALSE(cg.oom_kill_events.has());
  EXPECT_FALSE(cg.cpuset_count.has());
  EXPECT_FALSE(cg.effective_cpus.has());
}

TEST(ReadCgroup, MissingProcFileSaysWhy) {
  ScratchRoot r("cg_missing");
  CgroupFacts cg = read_cgroup(fixture_ctx(r.path()));
  EXPECT_TRUE(cg.collected);
  EXPECT_FALSE(cg.version.has());
  EXPECT_NE(cg.memory_limit_bytes.why().find("/proc/self/cgroup"), std::string::npos);
  Context c = fixture_ctx(r.path());
  c.pid = 4242;
  EXPECT_NE(read_cgroup(c).effective_cpus.why().find("/proc/4242/cgroup"), std::string::npos);
}

}  // namespace
}  // namespace plumb
