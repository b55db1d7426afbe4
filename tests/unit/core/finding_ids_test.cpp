// One id names one thing: every catalogue row is produced by a registered rule, every rule has a
// row, old ids are aliases that resolve, and no document or catalogue text cites an id that
// does not exist.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "core/catalog.h"
#include "core/registry.h"
#include "core/thresholds.h"
#include "../../test_util.h"

namespace plumb {
namespace {

bool has_rule(const std::string& id) {
  return std::any_of(rules().begin(), rules().end(), [&](const RuleInfo& r) { return r.id == id; });
}

TEST(FindingIds, EveryCatalogueRowHasARuleThatProducesIt) {
  for (const auto& [id, e] : catalog()) EXPECT_TRUE(has_rule(id)) << id << " has a catalogue row but no rule produces it";
}

TEST(FindingIds, EveryRuleHasACatalogueRow) {
  for (const auto& r : rules()) EXPECT_NE(catalog().count(r.id), 0u) << r.id << " (" << r.source << ") has no catalogue row";
}

TEST(FindingIds, AliasesResolveToCatalogueIdsAndNeverShadowOne) {
  ASSERT_FALSE(aliases().empty());
  for (const auto& a : aliases()) {
    EXPECT_EQ(catalog().count(a.from), 0u) << a.from << " is both an alias and a catalogue id";
    std::string now = canonical_id(a.from);
    EXPECT_NE(catalog().count(now), 0u) << a.from << " -> " << now << " is not a catalogue id";
    EXPECT_EQ(find_entry(a.from), find_entry(now)) << a.from;
    if (!a.source.empty()) {
      bool some = std::any_of(rules().begin(), rules().end(),
                              [&](const RuleInfo& r) { return r.id == now && r.source == a.source; });
      EXPECT_TRUE(some) << a.from << " names source '" << a.source << "' but no rule of " << now << " judges it";
    }
  }
}

TEST(FindingIds, FunnelLinksNameCurrentL2Ids) {
  for (const auto& [id, e] : catalog()) {
    for (const auto& l2 : e.explains) {
      auto it = catalog().find(l2);
      ASSERT_NE(it, catalog().end()) << id << " explains " << l2 << ", which is no catalogue id (an old id?)";
      EXPECT_EQ(it->second.layer, Layer::L2) << id << " explains " << l2;
      EXPECT_TRUE(has_rule(l2)) << id << " explains " << l2 << ", which no rule produces";
    }
  }
}

// Two sources of one behaviour: the old watch id selects the watch rule only, the current id both.
TEST(FindingIds, OldIdsSelectTheRuleOfTheirSource) {
  const RuleInfo* live = nullptr;
  const RuleInfo* watch = nullptr;
  for (const auto& r : rules()) {
    if (r.id != "l2.compute.cpu_saturated") continue;
    (r.source.empty() ? live : watch) = &r;
  }
  ASSERT_NE(live, nullptr);
  ASSERT_NE(watch, nullptr);
  Selection prefix{{"l2.watch"}, {}};
  EXPECT_TRUE(prefix.selects(*watch));
  EXPECT_FALSE(prefix.selects(*live));
  Selection old{{"l2.watch.cpu_saturated"}, {}};
  EXPECT_TRUE(old.selects(*watch));
  EXPECT_FALSE(old.selects(*live));
  Selection now{{"l2.compute.cpu_saturated"}, {}};
  EXPECT_TRUE(now.selects(*watch) && now.selects(*live));
  Selection skip_old{{}, {"l2.watch."}};
  EXPECT_FALSE(skip_old.selects(*watch));
  EXPECT_TRUE(skip_old.selects(*live));
  EXPECT_TRUE(unknown_selectors(Selection{{"l2.watch.gpu_busy_low", "l3.kernel.xid_errors"}, {"l2.watch"}}).empty());
  EXPECT_FALSE(unknown_selectors(Selection{{"l2.watch.no_such"}, {}}).empty());
  EXPECT_EQ(canonical_id("l3.kernel.xid_errors"), "l3.gpu.xid");
  EXPECT_EQ(canonical_id("l3.gpu.xid"), "l3.gpu.xid");
  EXPECT_EQ(find_entry("l2.watch.gpu_busy_low"), find_entry("l2.compute.gpu_underutilized"));
}

// --- Texts that cite ids --------------------------------------------------------------------

std::set<std::string> known_ids() {
  std::set<std::string> ids;
  for (const auto& [id, e] : catalog()) ids.insert(id);
  for (const auto& a : aliases()) ids.insert(a.from);
  return ids;
}

// "l3.storage.io_scheduler" (an id or alias, maybe ending a sentence), "l3.storage.*" or
// "l3.storage." (a dotted prefix of some id), "l3.comm.nccl_*" (the start of some id), or nothing.
bool cites_something(std::string s, const std::set<std::string>& ids) {
  if (auto star = s.find('*'); star != std::string::npos) {
    s.resize(star);
    return std::any_of(ids.begin(), ids.end(), [&](const std::string& id) { return id.rfind(s, 0) == 0; });
  }
  if (ids.count(s)) return true;
  if (s.back() != '.') return false;
  while (!s.empty() && s.back() == '.') s.pop_back();
  if (ids.count(s)) return true;
  return std::any_of(ids.begin(), ids.end(), [&](const std::string& id) { return id.rfind(s + ".", 0) == 0; });
}

std::vector<std::string> unknown_ids_in(const std::string& text, const std::set<std::string>& ids) {
  static const std::regex kId(R"(\bl[123]\.[a-z_]+\.[a-z0-9_.*]+)");
  std::vector<std::string> bad;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kId); it != std::sregex_iterator(); ++it) {
    if (!cites_something(it->str(), ids)) bad.push_back(it->str());
  }
  return bad;
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

TEST(FindingIds, TheScannerTellsIdsPrefixesAndUnknownNamesApart) {
  auto ids = known_ids();
  EXPECT_TRUE(unknown_ids_in("see `l3.storage.io_scheduler`.", ids).empty());
  EXPECT_TRUE(unknown_ids_in("all of l3.storage.* and l3.storage. and l3.comm.nccl_*", ids).empty());
  EXPECT_TRUE(unknown_ids_in("the old l3.kernel.xid_errors still works", ids).empty());
  EXPECT_EQ(unknown_ids_in("l3.host.memlock and l3.host.*", ids), (std::vector<std::string>{"l3.host.memlock", "l3.host.*"}));
}

TEST(FindingIds, DocumentsCiteOnlyKnownIds) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(test::test_dir()).parent_path();
  std::vector<fs::path> files{root / "README.md"};
  for (const auto& entry : fs::directory_iterator(root / "docs")) {
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  }
  ASSERT_GE(files.size(), 5u);
  auto ids = known_ids();
  for (const auto& f : files) {
    ASSERT_TRUE(fs::exists(f)) << f;
    for (const auto& bad : unknown_ids_in(read_text(f), ids)) ADD_FAILURE() << f.filename().string() << " cites " << bad;
  }
}

TEST(FindingIds, CatalogueAndThresholdTextsCiteOnlyKnownIds) {
  auto ids = known_ids();
  auto scan = [&](const std::string& where, const Text& t) {
    for (const auto* s : {&t.en, &t.zh}) {
      for (const auto& bad : unknown_ids_in(*s, ids)) ADD_FAILURE() << where << " cites " << bad;
    }
  };
  for (const auto& [id, e] : catalog()) {
    scan(id + " title", e.title);
    scan(id + " fix", e.fix);
    scan(id + " gain", e.gain);
    scan(id + " verify", Text{e.verify, ""});
    for (const auto& [variant, m] : e.messages) scan(id + " " + variant, m);
  }
  for (const auto& [key, d] : threshold_defs()) scan("threshold " + key, d.doc);
}

}  // namespace
}  // namespace plumb
