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

TEST(IndentLines, PadsEveryLineAfterTheFirst) {
  EXPECT_EQ(indent_lines("{\n  \"a\": 1\n}", "    ", "    "), "    {\n      \"a\": 1\n    }");
  EXPECT_EQ(indent_lines("{\n}", "  "), "{\n  }");
  EXPECT_EQ(indent_lines("one line", "  ", ">"), ">one line");
  EXPECT_EQ(indent_lines("", "  ", "x"), "x");
  EXPECT_EQ(indent_lines("a\n", "--"), "a\n--");
  EXPECT_EQ(indent_lines("\n\n", "-"), "\n-\n-");
}

}  // namespace
}  // namespace plumb
