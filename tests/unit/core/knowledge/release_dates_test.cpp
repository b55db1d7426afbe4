// Release-date table lookups and month arithmetic.
#include <gtest/gtest.h>

#include "core/knowledge/release_dates.h"

namespace plumb {
namespace {

TEST(ReleaseDates, KeysFromReportedVersions) {
  EXPECT_EQ(release_key("pytorch", "2.5.1+cu124"), "2.5");
  EXPECT_EQ(release_key("pytorch", "1.13.0a0"), "1.13");
  EXPECT_EQ(release_key("cuda", "12.4"), "12.4");
  EXPECT_EQ(release_key("nvidia-driver", "535.161.08"), "535");
  EXPECT_EQ(release_key("pytorch", "garbage"), "");
  ASSERT_TRUE(release_date("pytorch", "2.10.0").has_value());
  EXPECT_EQ(release_date("pytorch", "2.10.0")->year, 2026);
  EXPECT_FALSE(release_date("pytorch", "9.9").has_value());
  EXPECT_EQ(newest_release("pytorch")->version, "2.12");
}

TEST(ReleaseDates, ComparesNumerically) {
  EXPECT_GT(compare_versions("2.10", "2.9"), 0);
  EXPECT_EQ(compare_versions("2.5", "2.5.0"), 0);
  EXPECT_LT(compare_versions("570.26", "570.124.06"), 0);
}

TEST(ReleaseDates, WholeMonthsSince) {
  ReleaseDate r{"pytorch", "2.5", 2024, 10, 17, ""};
  EXPECT_EQ(months_since(r, "2025-01-15T00:00:00Z"), 2);
  EXPECT_EQ(months_since(r, "2025-01-17"), 3);
  EXPECT_FALSE(months_since(r, "yesterday").has_value());
  EXPECT_FALSE(months_since(r, "2025-13-01").has_value());
  ReleaseDate m{"cuda", "12.4", 2024, 3, 0, ""};
  EXPECT_EQ(months_since(m, "2024-09-01"), 6);
}

}  // namespace
}  // namespace plumb
