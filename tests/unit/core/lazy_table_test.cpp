// LazyTable: rows registered as functions are built on the first read, once, whatever the thread.
#include "core/lazy_table.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/catalog.h"
#include "core/i18n.h"
#include "core/registry.h"
#include "core/thresholds.h"

namespace plumb {
namespace {

using LazyRow = std::pair<std::string, int>;
using LazyMap = std::map<std::string, int>;

std::atomic<int> lazy_built{0};

void lazy_insert_rows(LazyMap& t, std::vector<LazyRow>&& rows) {
  for (auto& [k, v] : rows) {
    if (!t.emplace(k, v).second) throw std::logic_error("duplicate " + k);
  }
}

std::vector<LazyRow> lazy_first_rows() {
  ++lazy_built;
  return {{"a", 1}, {"b", 2}};
}
std::vector<LazyRow> lazy_second_rows() {
  ++lazy_built;
  return {{"c", 3}};
}
std::vector<LazyRow> lazy_clashing_rows() {
  ++lazy_built;
  return {{"a", 9}};
}

TEST(LazyTable, DeferredRowsAreBuiltAtTheFirstReadOnly) {
  lazy_built = 0;
  LazyTable<LazyMap, LazyRow> t(lazy_insert_rows);
  t.defer(lazy_first_rows);
  t.defer(lazy_second_rows);
  EXPECT_EQ(lazy_built, 0);
  EXPECT_EQ(t.get().size(), 3U);
  EXPECT_EQ(lazy_built, 2);
  EXPECT_EQ(t.get().at("c"), 3);
  EXPECT_EQ(lazy_built, 2);  // built once
}

TEST(LazyTable, RowsAddedDirectlyComeAfterTheDeferredOnes) {
  lazy_built = 0;
  LazyTable<LazyMap, LazyRow> t(lazy_insert_rows);
  t.defer(lazy_first_rows);
  EXPECT_THROW(t.add({{"b", 5}}), std::logic_error);  // clashes with a deferred row, reported now
  EXPECT_EQ(lazy_built, 1);
  t.add({{"d", 4}});
  t.defer(lazy_second_rows);  // a registration after a read is lazy_built at the next read
  EXPECT_EQ(t.get().size(), 4U);
  EXPECT_EQ(t.get().at("d"), 4);
}

TEST(LazyTable, ADuplicateIsReportedOnceAndTheRestStaysReadable) {
  lazy_built = 0;
  LazyTable<LazyMap, LazyRow> t(lazy_insert_rows);
  t.defer(lazy_first_rows);
  t.defer(lazy_clashing_rows);
  t.defer(lazy_second_rows);
  EXPECT_THROW(t.get(), std::logic_error);
  EXPECT_EQ(t.get().at("a"), 1);
  EXPECT_EQ(t.get().count("c"), 1U);
  EXPECT_EQ(lazy_built, 3);
}

TEST(LazyTable, ReadersOnManyThreadsBuildOnce) {
  lazy_built = 0;
  LazyTable<LazyMap, LazyRow> t(lazy_insert_rows);
  t.defer(lazy_first_rows);
  t.defer(lazy_second_rows);
  std::vector<std::thread> readers;
  std::atomic<int> sizes{0};
  for (int i = 0; i < 8; ++i) readers.emplace_back([&] { sizes += static_cast<int>(t.get().size()); });
  for (auto& r : readers) r.join();
  EXPECT_EQ(sizes, 24);
  EXPECT_EQ(lazy_built, 2);
}

// The real tables: every row registered as a function is there once read.
TEST(LazyTable, TheProgramsTablesHoldTheirDeferredRows) {
  warm_tables();
  EXPECT_NE(find_entry("l3.gpu.xid"), nullptr);
  EXPECT_EQ(tr(Lang::zh, "help.usage"), "用法");
  EXPECT_TRUE(threshold_defs().count("gpu.expected_count"));
}

}  // namespace
}  // namespace plumb
