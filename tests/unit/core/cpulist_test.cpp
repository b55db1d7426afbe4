// The one CPU-list parser (core/cpulist.h) on real sysfs, cgroup and /proc samples and on the
// inputs it must refuse.
#include <gtest/gtest.h>

#include "collect/pid_status.h"
#include "core/cpulist.h"
#include "../../test_util.h"

namespace plumb {
namespace {

TEST(CpuList, RealSysfsNodeLists) {
  // A two-socket DGX: each node has its physical cores and their hyperthread siblings.
  auto n0 = parse_cpulist(test::read_fixture("hosts/dgx-8gpu-2socket/sys/devices/system/node/node0/cpulist"));
  auto n1 = parse_cpulist(test::read_fixture("hosts/dgx-8gpu-2socket/sys/devices/system/node/node1/cpulist"));
  ASSERT_TRUE(n0.ok()) << n0.error().message;
  ASSERT_TRUE(n1.ok()) << n1.error().message;
  EXPECT_EQ(n0->size(), 112u);
  EXPECT_EQ(n1->size(), 112u);
  EXPECT_EQ(n0->front(), 0);
  EXPECT_EQ(n0->at(56), 112);  // "0-55,112-167"
  EXPECT_EQ(n1->back(), 223);
}

TEST(CpuList, RealCgroupAndStatusLists) {
  auto eff = parse_cpulist(test::read_fixture("cgroup/telegraf-v2/cpuset.cpus.effective"));
  ASSERT_TRUE(eff.ok());
  EXPECT_EQ(eff->size(), 96u);
  auto st = parse_pid_status(test::read_fixture("hosts/healthy/proc/self/status"));
  ASSERT_TRUE(st.fields.count("Cpus_allowed_list"));
  auto allowed = parse_cpulist(st.fields.at("Cpus_allowed_list"));
  ASSERT_TRUE(allowed.ok());
  EXPECT_FALSE(allowed->empty());
}

TEST(CpuList, SortedUniqueAndBlanksAllowed) {
  EXPECT_EQ(*parse_cpulist("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(*parse_cpulist(" 10-11 , 3,3,2-4 "), (std::vector<int>{2, 3, 4, 10, 11}));
  EXPECT_TRUE(parse_cpulist("")->empty());     // memory-only NUMA node
  EXPECT_TRUE(parse_cpulist("\n")->empty());
  EXPECT_EQ(parse_cpulist("65535")->size(), 1u);  // the largest number allowed
}

TEST(CpuList, RefusesGarbageWithTheItem) {
  for (const char* bad : {"3-1", "a-b", "0,,1", ",", "1-", "-1", "0-4000000000", "65536", "0-65536", "1 2", "0x3"}) {
    auto r = parse_cpulist(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.error().kind, ErrorKind::invalid) << bad;
    }
  }
  EXPECT_NE(parse_cpulist("0-3,7-5").error().message.find("7-5"), std::string::npos);
  EXPECT_NE(parse_cpulist("0-99999").error().message.find("65535"), std::string::npos);
}

TEST(CpuList, OverlappingRangesStayBounded) {
  std::string many;
  for (int i = 0; i < 500; ++i) many += "0-65535,";
  many += "7";
  auto r = parse_cpulist(many);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->size(), static_cast<std::size_t>(kCpuNumberLimit));
}

}  // namespace
}  // namespace plumb
