// Golden JSON and HTML reports of the fixture hosts in both languages (tests/e2e/golden/<case>.<lang>.<ext>),
// beside the Markdown ones; what is normalised before comparing is listed in golden.h. The normaliser is
// tested too: it must hide the volatile fields and nothing that a regression would change.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/json.h"
#include "golden.h"

namespace plumb {
namespace {

using test::run_plumb;

class GoldenReport : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenReport, MarkdownMatchesGolden) {
  const std::string name = GetParam();
  for (const std::string lang : {"en", "zh"}) {
    RunOutput r = run_plumb(golden::check_args(name, {"--format", "md", "--lang", lang}));
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << name << " " << lang << ": " << r.err;
    golden::expect_matches(golden::path(name, lang, "md"), golden::normalise_text(r.out));
  }
}

TEST_P(GoldenReport, JsonMatchesGolden) {
  const std::string name = GetParam();
  for (const std::string lang : {"en", "zh"}) {
    RunOutput r = run_plumb(golden::check_args(name, {"--format", "json", "--lang", lang}));
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << name << " " << lang << ": " << r.err;
    json doc = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << "not JSON: " << r.out.substr(0, 300);
    ASSERT_FALSE(doc.at("findings").empty()) << name;
    golden::expect_matches(golden::path(name, lang, "json"), golden::normalise_json(r.out));
  }
}

TEST_P(GoldenReport, HtmlMatchesGolden) {
  const std::string name = GetParam();
  for (const std::string lang : {"en", "zh"}) {
    RunOutput r = run_plumb(golden::check_args(name, {"--format", "html", "--lang", lang}));
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << name << " " << lang << ": " << r.err;
    ASSERT_EQ(r.out.rfind("<!DOCTYPE html>", 0), 0u) << r.out.substr(0, 300);
    golden::expect_matches(golden::path(name, lang, "html"), golden::normalise_text(r.out));
  }
}

INSTANTIATE_TEST_SUITE_P(Hosts, GoldenReport, ::testing::ValuesIn(golden::cases()), [](const auto& info) {
  std::string n = info.param;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
});

// Two runs differ in their times, durations, version and checkout; the normalised documents do not.
TEST(GoldenNormalise, JsonHidesOnlyTheVolatileFields) {
  const std::string dir = test::test_dir();
  auto doc = [&](const std::string& when, double ms, const std::string& version, const std::string& status) {
    json j;
    j["tool"] = {{"name", "plumb"}, {"version", version}};
    j["facts"]["meta"] = {{"tool_version", version},
                          {"started_at", when},
                          {"hostname", "gpu-node-01"},
                          {"root", dir + "/fixtures/hosts/healthy"},
                          {"duration_ms", ms},
                          {"collectors", json::array({{{"id", "collect.cpu"}, {"status", "ok"}, {"duration_ms", ms / 3}}})}};
    j["findings"] = json::array({{{"id", "l3.storage.io_scheduler"}, {"status", status}}});
    return j.dump();
  };
  std::string a = golden::normalise_json(doc("2026-01-02T03:04:05Z", 812.5, "0.1.0-abc", "pass"));
  std::string b = golden::normalise_json(doc("2027-11-12T13:14:15Z", 17.25, "0.2.0-def", "pass"));
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("\"<tests>/fixtures/hosts/healthy\""), std::string::npos) << a;
  EXPECT_EQ(a.find(dir), std::string::npos) << a;
  EXPECT_NE(a.find("gpu-node-01"), std::string::npos);
  // A finding that changes status is a difference, as is a host name read from the wrong place.
  EXPECT_NE(a, golden::normalise_json(doc("2026-01-02T03:04:05Z", 812.5, "0.1.0-abc", "warn")));
  std::string other_host = doc("2026-01-02T03:04:05Z", 812.5, "0.1.0-abc", "pass");
  golden::replace_all(other_host, "gpu-node-01", "build-box");
  EXPECT_NE(a, golden::normalise_json(other_host));
  // Not JSON: returned unchanged, so the comparison fails and shows it.
  EXPECT_EQ(golden::normalise_json("plumb: error\n"), "plumb: error\n");
}

TEST(GoldenNormalise, TextHidesDatesPathsAndVersionOnly) {
  const std::string dir = test::test_dir();
  std::string v = plumb_version();
  std::string a = golden::normalise_text("## Report (gpu-node-01, 2026-01-02)\n<footer>plumb " + v + "</footer>\n" + dir + "/fixtures/kmsg/x.log\n"
                                         "generated 2026-01-02T03:04:05.123Z\n- ❌ **Swap** 60 %\n");
  std::string b = golden::normalise_text("## Report (gpu-node-01, 2031-12-30)\n<footer>plumb " + v + "</footer>\n" + dir + "/fixtures/kmsg/x.log\n"
                                         "generated 2031-12-30T23:59:59Z\n- ❌ **Swap** 60 %\n");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.find(dir), std::string::npos);
  EXPECT_NE(a.find("<footer>plumb <version></footer>"), std::string::npos) << a;
  EXPECT_NE(a, golden::normalise_text("## Report (gpu-node-01, 2026-01-02)\n<footer>plumb " + v + "</footer>\n" + dir +
                                      "/fixtures/kmsg/x.log\ngenerated 2026-01-02T03:04:05Z\n- ✅ **Swap** 60 %\n"));
}

// A missing golden fails: a new case or format cannot pass before its golden is written and reviewed.
TEST(GoldenNormalise, EveryCaseHasAllItsGoldens) {
  if (test::update_golden()) GTEST_SKIP() << "rewriting goldens";
  for (const auto& name : golden::cases()) {
    for (const char* lang : {"en", "zh"}) {
      for (const char* ext : {"md", "json", "html"}) {
        EXPECT_TRUE(std::filesystem::is_regular_file(golden::path(name, lang, ext))) << golden::path(name, lang, ext);
      }
    }
  }
}

}  // namespace
}  // namespace plumb
