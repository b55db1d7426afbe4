// The CPU budget on fixture roots: the affinity count capped by the cgroup's CPU quota.
#include <gtest/gtest.h>

#include "collect/cgroup.h"
#include "../../scratch_root.h"
#include "../../test_util.h"

namespace plumb {
namespace {

TEST(CpuBudget, V1QuotaCapsTheAffinity) {  // docker run --cpus=2 on a 16-CPU cpuset
  const HostRoot root(test::host_fixture("docker-v1"));
  EXPECT_EQ(usable_cpus(root, 16), 2);
  EXPECT_EQ(usable_cpus(root, 1), 1);
}

TEST(CpuBudget, NoQuotaLeavesTheAffinity) { EXPECT_EQ(usable_cpus(HostRoot(test::host_fixture("healthy")), 12), 12); }

TEST(CpuBudget, V2QuotaOnAnAncestorRoundsUp) {
  test::ScratchRoot r("cpu_budget_v2");
  r.write("proc/self/cgroup", "0::/job/step\n");
  r.write("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
  r.write("sys/fs/cgroup/job/cpu.max", "150000 100000\n");
  r.write("sys/fs/cgroup/job/step/cpu.max", "max 100000\n");
  EXPECT_EQ(usable_cpus(HostRoot(r.path()), 64), 2);
}

TEST(CpuBudget, UnreadableCgroupLeavesTheAffinity) {
  test::ScratchRoot r("cpu_budget_none");
  EXPECT_EQ(usable_cpus(HostRoot(r.path()), 8), 8);
  EXPECT_EQ(usable_cpus(HostRoot(r.path()), 0), 1);
}

TEST(CpuBudget, LiveIsAtLeastOneAndWithinTheAffinity) {
  const int n = usable_cpus(HostRoot("/"));
  EXPECT_GE(n, 1);
  EXPECT_LE(n, static_cast<int>(affinity_cpus().size()));
}

}  // namespace
}  // namespace plumb
