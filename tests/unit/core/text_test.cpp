// core/text.h: the small string helpers every reader shares.
#include "core/text.h"

#include <gtest/gtest.h>

namespace plumb {
namespace {

TEST(BaseName, TakesTheLastComponent) {
  EXPECT_EQ(base_name("/a/b/c.json"), "c.json");
  EXPECT_EQ(base_name("c.json"), "c.json");
  EXPECT_EQ(base_name("/sys/block/nvme0n1/"), "nvme0n1");
  EXPECT_EQ(base_name("/"), "/");
  EXPECT_EQ(base_name("-"), "-");
  EXPECT_EQ(base_name(""), "");
}

TEST(HumanBytes, UsesBinaryUnits) {
  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(1536), "1.5 KiB");
  EXPECT_EQ(human_bytes(std::uint64_t{3} << 30), "3 GiB");
  EXPECT_EQ(human_bytes(std::uint64_t{300} << 20), "300 MiB");
}

}  // namespace
}  // namespace plumb
