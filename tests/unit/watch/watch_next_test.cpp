// The "next checks" of L2 watch findings name real catalogue rows and registered rules only.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/catalog.h"
#include "core/registry.h"
#include "watch/watch_next.h"

namespace plumb {
namespace {

std::vector<std::string> watch_l2_ids() {
  std::vector<std::string> ids;
  for (const auto& [id, e] : catalog()) {
    if (e.layer == Layer::L2 && id.rfind("l2.watch.", 0) == 0) ids.push_back(id);
  }
  return ids;
}

bool selects_some_rule(const std::string& prefix) {
  Selection sel;
  sel.only = {prefix};
  return std::any_of(rules().begin(), rules().end(), [&](const RuleInfo& r) { return sel.selects(r.id); });
}

TEST(WatchNext, EveryHandWrittenAreaNamesCatalogueRows) {
  ASSERT_FALSE(next_check_areas().empty());
  for (const auto& [l2, areas] : next_check_areas()) {
    const CatalogEntry* e = find_entry(l2);
    ASSERT_NE(e, nullptr) << l2 << " is not a catalogue id";
    EXPECT_EQ(e->layer, Layer::L2) << l2;
    for (const auto& a : areas) {
      EXPECT_TRUE(names_l3_rows(a)) << l2 << " suggests '" << a << "', which matches no L3 catalogue id";
      EXPECT_TRUE(selects_some_rule(a)) << l2 << " suggests '" << a << "', which selects no registered rule";
    }
  }
}

TEST(WatchNext, EverySuggestionOfEveryWatchFindingIsAKnownCheck) {
  for (const auto& l2 : watch_l2_ids()) {
    for (const auto& s : next_checks(l2)) {
      EXPECT_TRUE(names_l3_rows(s)) << l2 << " -> " << s;
      Selection sel;
      sel.only = {s};
      EXPECT_TRUE(unknown_selectors(sel).empty()) << l2 << " -> " << s << " would be refused by plumb check --only";
    }
  }
}

TEST(WatchNext, PrefixesMatchWholeDottedComponentsOnly) {
  EXPECT_TRUE(names_l3_rows("l3.storage"));
  EXPECT_TRUE(names_l3_rows("l3.storage."));
  EXPECT_TRUE(names_l3_rows("l3.storage.io_scheduler"));
  EXPECT_FALSE(names_l3_rows("l3.stor"));
  EXPECT_FALSE(names_l3_rows("l3.cgroup"));  // the old suggestion that named nothing
  EXPECT_FALSE(names_l3_rows("l2.watch"));   // an L2 prefix is not an L3 check
  EXPECT_FALSE(names_l3_rows(""));
}

TEST(WatchNext, EachBehaviourHasSomethingToCheckAndTheCommandNamesIt) {
  for (const auto& l2 : watch_l2_ids()) {
    if (l2 == "l2.watch.summary") continue;  // a description of the run, not a behaviour
    auto ids = next_checks(l2);
    EXPECT_FALSE(ids.empty()) << l2;
    EXPECT_NE(next_checks_command(l2).find("plumb check --only " + (ids.empty() ? "" : ids.front())), std::string::npos) << l2;
  }
  EXPECT_EQ(next_checks_command("l2.no.such"), "`plumb check`");
}

}  // namespace
}  // namespace plumb
