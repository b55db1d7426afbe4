// The phrase table (core/phrases.h): exact rows, patterns whose parts are looked up again, raw
// {=parts}, bracket balance, and the letter-free patterns that apply only when a part translates.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/phrases.h"

namespace plumb {
namespace {

// The program's rows and these.
std::vector<Phrase> test_rows() {
  std::vector<Phrase> rows = phrases();
  rows.insert(rows.end(), {
                              {"unit test: planted label", "单元测试：植入的标签"},
                              {"unit test: {lib} is gone ({why})", "单元测试：{lib} 不见了（{why}）"},
                              {"unit test: No such thing", "单元测试：没有这个"},
                              {"unit test: one of {=list}", "单元测试：以下之一 {=list}"},
                          });
  return rows;
}
std::string zh(std::string_view text) { return localize_with(test_rows(), text); }

TEST(Phrases, EnglishIsUnchanged) {
  EXPECT_EQ(localize(Lang::en, "unit test: planted label"), "unit test: planted label");
}

TEST(Phrases, ExactRow) {
  EXPECT_EQ(zh("unit test: planted label"), "单元测试：植入的标签");
  EXPECT_EQ(zh("unit test: planted label "), "unit test: planted label ");  // whole text only
}

TEST(Phrases, PatternPartsAreLookedUpAgain) {
  EXPECT_EQ(zh("unit test: libx.so is gone (unit test: No such thing)"), "单元测试：libx.so 不见了（单元测试：没有这个）");
  // A part that matches no row (a path) is copied as it is.
  EXPECT_EQ(zh("unit test: /a b/c is gone (errno 2)"), "单元测试：/a b/c 不见了（errno 2）");
}

TEST(Phrases, RawPartsAreNotLookedUp) {
  EXPECT_EQ(zh("unit test: one of unit test: planted label"), "单元测试：以下之一 unit test: planted label");
}

TEST(Phrases, PartsKeepTheirBracketsBalanced) {
  // The shortest {why} would be "x (y": unbalanced, so the part grows to "x (y)".
  EXPECT_EQ(zh("unit test: f(1) is gone (x (y))"), "单元测试：f(1) 不见了（x (y)）");
}

TEST(Phrases, LetterFreePatternsNeedATranslatedPart) {
  // "{a}, {b}" and "{a}; {b}" (src/report/phrases_zh.cpp) leave values alone...
  EXPECT_EQ(zh("mlx5_0, mlx5_1; eno1"), "mlx5_0, mlx5_1; eno1");
  // ...and join translated parts.
  EXPECT_EQ(zh("unit test: planted label; unit test: No such thing"), "单元测试：植入的标签；单元测试：没有这个");
}

TEST(Phrases, DuplicateRowIsAnError) {
  auto rows = test_rows();
  rows.push_back({"unit test: planted label", "x"});
  EXPECT_THROW(localize_with(rows, "unit test: planted label"), std::logic_error);
}

}  // namespace
}  // namespace plumb
