// A check that could not look does not pass: a rule whose collector timed out says so in its skip,
// and the report's verdict is "incomplete", never "no defect found", in every text format.
#include <gtest/gtest.h>

#include "core/registry.h"
#include "core/thresholds.h"
#include "report/counts.h"
#include "report/report.h"

namespace plumb {
namespace {

// Every collector timed out, as under `plumb check --timeout 1ms`: nothing was read.
Facts all_timed_out() {
  Facts f;
  for (const auto& c : collectors()) f.meta.collectors.push_back({c.id, "timed out", 1, "no answer within 1 ms"});
  return f;
}

TEST(IncompleteRun, SkipsNameTheCollectorThatTimedOut) {
  Facts facts = all_timed_out();
  auto findings = judge(facts, Thresholds{}, Selection{});
  std::size_t late = 0;
  for (const auto& f : findings) {
    if (f.status != Status::skip || f.args.count("timed_out") == 0) continue;
    ++late;
    const std::string& who = f.args.at("timed_out");
    EXPECT_EQ(f.args.at("reason"), who + " timed out (no answer within 1 ms)") << f.id;
  }
  EXPECT_GT(late, 20u);
  // A rule that reads no timed-out collector keeps its own reason.
  Facts clean;
  for (const auto& f : judge(clean, Thresholds{}, Selection{})) EXPECT_EQ(f.args.count("timed_out"), 0u) << f.id;
}

TEST(IncompleteRun, TheVerdictIsIncompleteNotClean) {
  Report r;
  r.facts = all_timed_out();
  r.findings = judge(r.facts, Thresholds{}, Selection{});
  for (Lang lang : {Lang::en, Lang::zh}) {
    const std::string v = verdict_text(r, lang);
    EXPECT_EQ(v.find(tr(lang, "summary.verdict_ok")), std::string::npos) << v;
    EXPECT_NE(v.find("collect."), std::string::npos) << v;
    RenderOptions o;
    o.lang = lang;
    for (const char* format : {"term", "md", "html"}) {
      const std::string text = find_renderer(format)->render(r, o);
      EXPECT_EQ(text.find(tr(lang, "summary.verdict_ok")), std::string::npos) << format;
    }
  }
  EXPECT_EQ(verdict_text(r, Lang::en).rfind("Incomplete: ", 0), 0u) << verdict_text(r, Lang::en);
  // A failure still reads as defects found.
  Finding fail;
  fail.id = "l3.host.memlock";
  fail.status = Status::fail;
  r.findings.push_back(fail);
  EXPECT_EQ(verdict_text(r, Lang::en), tr(Lang::en, "summary.verdict_fail"));
}

}  // namespace
}  // namespace plumb
