// Duration options ("100ms", "1.5s", "2m"): units, errors and the shortest form they print in.
#include <gtest/gtest.h>

#include "core/duration.h"

namespace plumb {
namespace {

using namespace std::chrono_literals;

TEST(Duration, UnitsAndErrors) {
  EXPECT_EQ(*watch::parse_duration("100ms"), 100ms);
  EXPECT_EQ(*watch::parse_duration("1s"), 1000ms);
  EXPECT_EQ(*watch::parse_duration("1.5s"), 1500ms);
  EXPECT_EQ(*watch::parse_duration("2m"), 120000ms);
  EXPECT_EQ(*watch::parse_duration(" 1h "), 3600000ms);
  EXPECT_EQ(*watch::parse_duration("5"), 5000ms);  // a bare number is seconds
  EXPECT_EQ(*watch::parse_duration("0.5"), 500ms);
  EXPECT_FALSE(watch::parse_duration("5 parsecs").ok());
  EXPECT_FALSE(watch::parse_duration("-1s").ok());
  EXPECT_FALSE(watch::parse_duration("0s").ok());
  EXPECT_FALSE(watch::parse_duration("").ok());
  EXPECT_FALSE(watch::parse_duration("1e400s").ok());
  EXPECT_EQ(watch::format_duration(1500ms), "1.5s");
  EXPECT_EQ(watch::format_duration(120000ms), "2m");
}

}  // namespace
}  // namespace plumb
