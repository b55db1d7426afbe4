// Compact host-range notation.
#include "core/hostlist.h"

#include <gtest/gtest.h>

namespace plumb {

TEST(HostList, FoldsConsecutiveNumbersKeepingPadding) {
  EXPECT_EQ(compact_hosts({"gpu03", "gpu01", "gpu02", "gpu07", "gpu09", "gpu08"}), "gpu[01-03,07-09]");
}

TEST(HostList, SingleNumberedHostStaysPlain) { EXPECT_EQ(compact_hosts({"gpu17"}), "gpu17"); }

TEST(HostList, MixedPrefixesAndPlainNames) {
  EXPECT_EQ(compact_hosts({"login", "node1", "node2", "gpu-a01", "node3", "node1"}), "gpu-a01,node[1-3],login");
}

TEST(HostList, PaddedAndUnpaddedNumbers) {
  EXPECT_EQ(compact_hosts({"n9", "n10", "n08", "n09"}), "n9,n[08-10]");
  EXPECT_EQ(compact_hosts({"node10", "node9", "node11", "node1"}), "node[1,9-11]");
}

TEST(HostList, SixtyOfSixtyFourNodesIsOneShortCell) {
  std::vector<std::string> hosts;
  for (int i = 1; i <= 64; ++i) {
    if (i == 13 || i == 40 || i == 41 || i == 64) continue;
    hosts.push_back((i < 10 ? "gpu0" : "gpu") + std::to_string(i));
  }
  EXPECT_EQ(compact_hosts(hosts), "gpu[01-12,14-39,42-63]");
}

TEST(HostList, EmptyIsEmpty) { EXPECT_EQ(compact_hosts({}), ""); }

}  // namespace plumb
