// The "next checks" of L2 watch findings name real catalogue rows and registered rules only.
#include "rules/watch_next.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/catalog.h"
#include "core/registry.h"

namespace plumb {
namespace {

// The ids `plumb watch` judges: the rules `--only l2.watch` selects (l2.watch.* and the watch
// source of ids such as l2.compute.gpu_underutilized, through their old l2.watch.* names).
std::vector<std::string> watch_l2_ids() {
  Selection sel;
  sel.only = {"l2.watch"};
  std::vector<std::string> ids;
  for (const auto& r : rules()) {
    if (sel.selects(r) && find_entry(r.id) != nullptr && find_entry(r.id)->layer == Layer::L2) ids.push_back(r.id);
  }
  return ids;
}

bool selects_some_rule(const std::string& prefix) {
  Selection sel;
  sel.only = {prefix};
  return std::any_of(rules().begin(), rules().end(), [&](const RuleInfo& r) { return sel.selects(r); });
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
    EXPECT_NE(next_checks_command(l2).find("plumb check --only " + (ids.empty() ? "" : ids.front())), std::string::npos)
        << l2;
  }
  EXPECT_EQ(next_checks_command("l2.no.such"), "`plumb check`");
}

// The funnel: every L2 watch behaviour (rows that can warn or fail) is explained by at least one
// L3 row, so a failing watch finding always leads somewhere in `plumb check`.
bool can_flag(const CatalogEntry& e) {
  return std::any_of(e.messages.begin(), e.messages.end(),
                     [](const auto& kv) { return kv.first != "info" && kv.first != "pass"; });
}

TEST(WatchFunnel, EveryWatchBehaviourHasAnL3Cause) {
  std::size_t checked = 0;
  for (const auto& l2 : watch_l2_ids()) {
    if (!can_flag(*find_entry(l2))) continue;  // l2.watch.summary only describes the run
    ++checked;
    auto causes = l3_causes_of(l2);
    EXPECT_FALSE(causes.empty()) << l2 << " has no L3 row listing it in `explains`";
    for (const auto& c : causes) EXPECT_EQ(find_entry(c)->layer, Layer::L3) << c;
  }
  EXPECT_GE(checked, 6u);
}

TEST(WatchFunnel, ExplainsListsNameExistingL2Rows) {
  for (const auto& [id, e] : catalog()) {
    for (const auto& l2 : e.explains) {
      const CatalogEntry* x = find_entry(l2);
      ASSERT_NE(x, nullptr) << id << " explains unknown id " << l2;
      EXPECT_EQ(x->layer, Layer::L2) << id << " explains " << l2;
    }
  }
}

TEST(WatchFunnel, ExplainedCausesAreSuggestedNext) {
  // The funnel's rows reach the command: each cause is named itself or under a suggested prefix.
  for (const auto& l2 : watch_l2_ids()) {
    auto next = next_checks(l2);
    for (const auto& c : l3_causes_of(l2)) {
      Selection sel;
      sel.only = next;
      EXPECT_TRUE(sel.selects(c)) << l2 << ": cause " << c << " is not in " << next_checks_command(l2);
    }
  }
}

}  // namespace
}  // namespace plumb
