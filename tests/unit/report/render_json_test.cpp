// The JSON report is assembled from pieces (the document, then each finding converted on its own,
// some of them while `plumb check` still collects): the text must be exactly what the JSON library
// prints for the whole document, and the same whichever findings were converted beforehand.
#include <gtest/gtest.h>

#include "core/json.h"
#include "core/registry.h"
#include "report/report.h"
#include "../../test_util.h"

namespace plumb {
namespace {

Report judged_snapshot(const std::string& name) {
  auto facts = facts_from_snapshot(test::read_fixture("framework/snapshots/" + name), name);
  EXPECT_TRUE(facts) << facts.error().message;
  Report r;
  r.facts = std::move(facts.value());
  r.findings = judge(r.facts, Thresholds{}, Selection{});
  return r;
}

// What the library prints for the document the text holds: the same bytes when the pieces were
// joined as the library would have printed them.
std::string reprinted(const std::string& text) {
  return json::parse(text).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

TEST(RenderJson, TheAssembledTextIsWhatTheLibraryPrintsForTheWholeDocument) {
  for (const char* name : {"a.json", "b.json"}) {
    Report r = judged_snapshot(name);
    ASSERT_GT(r.findings.size(), 10U);
    for (Lang lang : {Lang::en, Lang::zh}) {
      RenderOptions o;
      o.lang = lang;
      std::string text = render_json_text(r, o);
      EXPECT_EQ(text, reprinted(text)) << name;
      json doc = json::parse(text);
      ASSERT_EQ(doc["findings"].size(), r.findings.size());
      auto order = ordered(r.findings);
      for (std::size_t k = 0; k < order.size(); ++k) EXPECT_EQ(doc["findings"][k]["id"], order[k]->id);
    }
  }
}

TEST(RenderJson, NoFindingsIsAnEmptyArray) {
  Report r = judged_snapshot("a.json");
  r.findings.clear();
  std::string text = render_json_text(r, RenderOptions{});
  EXPECT_EQ(text, reprinted(text));
  EXPECT_NE(text.find("\n  \"findings\": [],\n  \"lang\": \"en\","), std::string::npos);
}

TEST(RenderJson, InvalidUtf8FromTheMachineIsReplacedNotThrown) {
  Report r = judged_snapshot("a.json");
  r.findings.front().args["value"] = std::string("bad \xff\xfe byte and a \"quote\"\n");
  std::string text = render_json_text(r, RenderOptions{});
  EXPECT_EQ(text, reprinted(text));
  EXPECT_NE(text.find("bad \xEF\xBF\xBD\xEF\xBF\xBD byte and a \\\"quote\\\"\\n"), std::string::npos);
}

}  // namespace
}  // namespace plumb
