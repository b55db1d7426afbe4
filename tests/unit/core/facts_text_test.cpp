// The facts' JSON printed one area at a time (some areas while `plumb check` still collects) must
// be exactly what the JSON library prints for the whole Facts, in the report's indented form and
// in the history database's compact one.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/facts_text.h"
#include "core/json.h"
#include "report/report.h"
#include "../../test_util.h"

namespace plumb {
namespace {

Facts snapshot_facts(const std::string& name) {
  auto facts = facts_from_snapshot(test::read_fixture("framework/snapshots/" + name), name);
  EXPECT_TRUE(facts) << facts.error().message;
  return facts ? *facts : Facts{};
}

std::string library_compact(const Facts& f) { return json(f).dump(-1, ' ', false, json::error_handler_t::replace); }

// The facts object as the library prints it one level into a document: {"facts": ...} printed
// with indent 2, the key's line and the outer braces taken off.
std::string library_report(const Facts& f) {
  json doc;
  doc["facts"] = f;
  std::string text = doc.dump(2, ' ', false, json::error_handler_t::replace);
  const std::string head = "{\n  \"facts\": ";
  EXPECT_EQ(text.substr(0, head.size()), head);
  return text.substr(head.size(), text.size() - head.size() - 2);
}

TEST(FactsText, TheAreasAreTheKeysOfTheJsonForm) {
  json j = Facts{};
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(facts_areas(), keys);
}

TEST(FactsText, PrintedAtOnceItIsWhatTheLibraryPrints) {
  for (const Facts& f : {Facts{}, snapshot_facts("a.json"), snapshot_facts("b.json")}) {
    FactsText t;
    EXPECT_FALSE(t.prepared());
    EXPECT_EQ(t.report_text(f), library_report(f));
    EXPECT_EQ(t.compact_text(f), library_compact(f));
  }
}

TEST(FactsText, AreasPrintedEarlyGiveTheSameText) {
  Facts partial = snapshot_facts("b.json");
  Facts full = partial;
  partial.framework = Facts{}.framework;
  partial.meta.collectors.clear();
  FactsText t;
  t.prepare(partial, {"framework", "meta"});
  EXPECT_TRUE(t.prepared());
  // The later areas are printed from the facts given at the end, the others as they were.
  EXPECT_EQ(t.report_text(full), library_report(full));
  EXPECT_EQ(t.compact_text(full), library_compact(full));
  // Nothing later: every area from the early facts.
  FactsText all;
  all.prepare(full, {});
  EXPECT_EQ(all.report_text(full), library_report(full));
  EXPECT_EQ(all.compact_text(full), library_compact(full));
}

TEST(FactsText, InvalidUtf8FromTheMachineIsReplacedNotThrown) {
  Facts f = snapshot_facts("a.json");
  f.host.process.environ = Fact<std::map<std::string, std::string>>::of({{"BAD", "x\xff\xfey"}}, "/proc/1/environ");
  FactsText t;
  t.prepare(f, {"meta"});
  EXPECT_EQ(t.report_text(f), library_report(f));
  EXPECT_EQ(t.compact_text(f), library_compact(f));
  EXPECT_NE(t.compact_text(f).find("x\xEF\xBF\xBD\xEF\xBF\xBDy"), std::string::npos);
}

TEST(FactsText, AnUnknownAreaIsAnError) {
  FactsText t;
  EXPECT_THROW(t.prepare(Facts{}, {"frameworks"}), std::invalid_argument);
}

TEST(FactsText, AnAreaChangedAfterItWasPrintedIsCaughtWhereAssertionsAreOn) {
#ifdef NDEBUG
  GTEST_SKIP() << "the comparison runs in builds with assertions (debug, sanitizers) only";
#else
  Facts f = snapshot_facts("a.json");
  FactsText t;
  t.prepare(f, {"framework"});
  f.framework.collected = !f.framework.collected;  // a later area: fine
  EXPECT_NO_THROW((void)t.compact_text(f));
  f.host.os.kernel = Fact<std::string>::of("6.99.0-changed", "/proc/sys/kernel/osrelease");  // printed early
  EXPECT_THROW((void)t.report_text(f), std::logic_error);
  EXPECT_THROW((void)t.compact_text(f), std::logic_error);
#endif
}

}  // namespace
}  // namespace plumb
