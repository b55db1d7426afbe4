// core/json.h: JSON from outside plumb, its nesting checked before the library parses it.
#include "core/json.h"

#include <gtest/gtest.h>

#include <string>

namespace plumb {
namespace {

std::string nested(int depth, char open = '[', char close = ']') {
  return std::string(static_cast<std::size_t>(depth), open) + std::string(static_cast<std::size_t>(depth), close);
}

TEST(OutsideJson, DepthCountsArraysAndObjectsOutsideStrings) {
  EXPECT_FALSE(json_nests_deeper_than("", 0));
  EXPECT_FALSE(json_nests_deeper_than("1", 0));
  EXPECT_TRUE(json_nests_deeper_than("[]", 0));
  EXPECT_FALSE(json_nests_deeper_than("[[]]", 2));
  EXPECT_TRUE(json_nests_deeper_than("[[[]]]", 2));
  EXPECT_TRUE(json_nests_deeper_than(R"({"a":{"b":[1]}})", 2));
  EXPECT_FALSE(json_nests_deeper_than(R"({"a":{"b":[1]}})", 3));
  // Siblings do not add up; closing brackets bring the depth down.
  EXPECT_FALSE(json_nests_deeper_than("[[1],[2],[3],{}]", 2));
  // Brackets inside strings, escaped quotes and escaped backslashes do not count.
  EXPECT_FALSE(json_nests_deeper_than(R"(["[[[[{{{{"])", 1));
  EXPECT_FALSE(json_nests_deeper_than(R"(["\"[[[[", "{{"])", 1));
  EXPECT_TRUE(json_nests_deeper_than(R"(["\\", [[1]]])", 2));
  // A stray closing bracket does not make room for deeper nesting later.
  EXPECT_TRUE(json_nests_deeper_than("]]]][[[", 2));
}

TEST(OutsideJson, ADocumentNestedPastTheLimitIsRefusedBeforeParsing) {
  auto ok = parse_outside_json(nested(kMaxOutsideJsonDepth));
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_TRUE(ok->is_array());
  auto deep = parse_outside_json(nested(kMaxOutsideJsonDepth + 1, '[', ']'));
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().message, "nested deeper than 256 levels");
  // A million levels: refused at the 257th bracket, never parsed, printed or copied.
  auto huge = parse_outside_json(std::string(1000000, '[') + std::string(1000000, ']'));
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().message, "nested deeper than 256 levels");
  std::string objects;
  for (int i = 0; i < 300; ++i) objects += R"({"a":)";
  objects += "1" + std::string(300, '}');
  EXPECT_FALSE(parse_outside_json(objects));
}

TEST(OutsideJson, TextThatIsNotJsonSaysSo) {
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "nul", "\"unterminated"}) {
    auto r = parse_outside_json(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message, "not valid JSON") << bad;
  }
  auto r = parse_outside_json(R"({"plumb": [1, "two", {"three": null}]})");
  ASSERT_TRUE(r);
  EXPECT_EQ(dump_text(*r), R"({"plumb":[1,"two",{"three":null}]})");
}

}  // namespace
}  // namespace plumb
