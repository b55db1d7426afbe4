// close_groups does bounded work: a 64-GPU matrix asked for groups of 32 answers quickly, says
// that the search was cut, and still returns a valid group.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "analyze/topology.h"

namespace plumb {
namespace {

// A text matrix of n GPUs: NV18 within blocks of 8, SYS across.
std::string matrix(int n) {
  std::string s = "\t";
  for (int i = 0; i < n; ++i) s += "GPU" + std::to_string(i) + "\t";
  s += "CPU Affinity\tNUMA Affinity\n";
  for (int i = 0; i < n; ++i) {
    s += "GPU" + std::to_string(i);
    for (int j = 0; j < n; ++j) s += i == j ? "\t X " : (i / 8 == j / 8 ? "\tNV18" : "\tSYS");
    s += "\t0-63\t0\n";
  }
  return s;
}

TEST(CloseGroupsBound, LargeSearchIsCutAndStillAnswers) {
  auto t = parse_topo_text(matrix(64));
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->gpus.size(), 64u);
  bool cut = false;
  // The search is bounded by a count of pair scores (kMaxPairScores), not by time: `cut` says the
  // bound was reached; how long it takes is the machine's load, not a property to test.
  auto g = close_groups(*t, 32, 16, &cut);
  EXPECT_TRUE(cut);
  ASSERT_FALSE(g.empty());
  EXPECT_EQ(g.front().gpus.size(), 32u);
  EXPECT_EQ(std::set<int>(g.front().gpus.begin(), g.front().gpus.end()).size(), 32u);
}

TEST(CloseGroupsBound, SmallSearchIsExhaustive) {
  auto t = parse_topo_text(matrix(16));
  ASSERT_TRUE(t.ok()) << t.error().message;
  bool cut = true;
  auto g = close_groups(*t, 8, 16, &cut);
  EXPECT_FALSE(cut);
  ASSERT_FALSE(g.empty());
  EXPECT_EQ(g.front().worst, "NV18");  // one block of 8
}

}  // namespace
}  // namespace plumb
