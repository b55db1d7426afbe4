// `--format html`: one self-contained, well-formed page (parsed here with pugixml), with no
// outside resource, the same findings as the JSON report, the trace's step chart, both
// languages, and a real browser (Debian's Chromium, headless) building the same DOM from it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "../test_util.h"

namespace plumb {
namespace {

using nlohmann::json;

pugi::xml_document parse_html(const std::string& html, std::string& error) {
  pugi::xml_document doc;
  auto ok = doc.load_string(html.c_str(), pugi::parse_default | pugi::parse_doctype);
  if (!ok) error = std::string(ok.description()) + " at byte " + std::to_string(ok.offset);
  return doc;
}

std::size_t count(const pugi::xml_document& doc, const char* xpath) { return doc.select_nodes(xpath).size(); }

// Nothing in the page may make a browser fetch anything.
void expect_self_contained(const std::string& html) {
  for (const char* bad : {"<script", "<link", "<img", "<iframe", "src=", "url(", "@import", "href=\"http", "href='http"}) {
    EXPECT_EQ(html.find(bad), std::string::npos) << bad;
  }
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
}

TEST(HtmlReport, CheckReportIsWellFormedSelfContainedAndMatchesJson) {
  const std::string root = test::host_fixture("oom-xid");
  auto h = test::run_plumb({"check", "--root", root, "--format", "html"});
  auto j = test::run_plumb({"check", "--root", root, "--format", "json"});
  ASSERT_EQ(h.exit_code, j.exit_code) << h.err;
  ASSERT_EQ(h.out.rfind("<!DOCTYPE html>", 0), 0u);
  expect_self_contained(h.out);
  std::string error;
  auto doc = parse_html(h.out, error);
  ASSERT_TRUE(error.empty()) << error;
  // Every failing or warning finding of the JSON report is an <article> with its id shown.
  json rep = json::parse(j.out);
  std::size_t problems = 0, skipped = 0;
  for (const auto& f : rep["findings"]) {
    std::string st = f["status"];
    if (st == "fail" || st == "warn" || st == "info") ++problems;
    if (st == "skip") ++skipped;
    std::string id = f["id"];
    EXPECT_NE(h.out.find(">" + id + "</code>"), std::string::npos) << id;
  }
  EXPECT_GT(problems, 0u);
  // Problems are cards; checks that could not run are folded, one group per reason, each check
  // listed once.
  EXPECT_EQ(count(doc, "//article[contains(@class,'finding')]"), problems);
  EXPECT_EQ(count(doc, "//section[@id='sec-skipped']//details[contains(@class,'skipped')]//li"), skipped);
  std::set<std::string> reasons;
  for (auto n : doc.select_nodes("//section[@id='sec-skipped']//details/summary")) {
    EXPECT_TRUE(reasons.insert(n.node().child_value()).second) << "one group per reason";
  }
  EXPECT_LT(reasons.size(), skipped);
  EXPECT_EQ(count(doc, "//article[contains(@class,'fail')]"), std::size_t(rep["summary"]["fail"]));
  // Six layer sections, the funnel, and the skipped checks when there are any.
  EXPECT_EQ(count(doc, "//section"), 7u + (skipped > 0 ? 1u : 0u));
  // Anchors are unique (a finding id repeats once per subject).
  std::set<std::string> ids;
  for (auto n : doc.select_nodes("//*[@id]")) EXPECT_TRUE(ids.insert(n.node().attribute("id").value()).second);
  // Funnel links point at anchors of this page.
  for (auto n : doc.select_nodes("//section[@id='sec-funnel']//a")) {
    std::string href = n.node().attribute("href").value();
    ASSERT_EQ(href.rfind('#', 0), 0u);
    EXPECT_TRUE(ids.count(href.substr(1))) << href;
  }
}

// Worst first in each section, and a clean report carries no red "0 failed" badge.
TEST(HtmlReport, FailuresLeadAndACleanReportHasNoRedBadge) {
  auto bad = test::run_plumb({"check", "--root", test::host_fixture("oom-xid"), "--format", "html"});
  std::string error;
  auto doc = parse_html(bad.out, error);
  ASSERT_TRUE(error.empty()) << error;
  for (auto sec : doc.select_nodes("//section")) {
    bool seen_lighter = false;
    for (auto a : sec.node().select_nodes(".//article")) {
      const std::string cls = a.node().attribute("class").value();
      const bool is_fail = cls.find("fail") != std::string::npos;
      if (!is_fail) seen_lighter = true;
      EXPECT_FALSE(is_fail && seen_lighter) << "a failure after a lighter card in " << sec.node().attribute("id").value();
    }
  }
  EXPECT_NE(bad.out.find("class=\"b-fail\""), std::string::npos);
  auto clean = test::run_plumb({"check", "--root", test::host_fixture("healthy"), "--format", "html"});
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(clean.out.find("class=\"b-fail\""), std::string::npos);
  EXPECT_EQ(clean.out.find("class=\"b-warn\""), std::string::npos);
}

TEST(HtmlReport, ChineseReportUsesTheReportTemplateVocabulary) {
  auto h = test::run_plumb({"check", "--root", test::host_fixture("oom-xid"), "--format", "html", "--lang", "zh-CN"});
  std::string error;
  auto doc = parse_html(h.out, error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_STREQ(doc.child("html").attribute("lang").value(), "zh-CN");
  EXPECT_NE(h.out.find("架构健康体检报告"), std::string::npos);
  EXPECT_NE(h.out.find("GPU层诊断"), std::string::npos);
}

TEST(HtmlReport, TraceReportHasStepTableAndChart) {
  auto h = test::run_plumb({"trace", test::fixture("traces/corpus/kineto-resnet50-num-workers-0-dataloader-bound.json.gz"),
                            "--format", "html"});
  ASSERT_EQ(h.exit_code, 0) << h.err;  // warnings only
  expect_self_contained(h.out);
  std::string error;
  auto doc = parse_html(h.out, error);
  ASSERT_TRUE(error.empty()) << error;
  // 6 ProfilerStep rows plus the total row, one bar per step in the chart.
  EXPECT_EQ(count(doc, "//section[@id='sec-data']//table[1]/tbody/tr"), 7u);
  EXPECT_EQ(count(doc, "//svg[@class='steps']/g"), 6u);
  EXPECT_EQ(count(doc, "//svg[@class='steps']/g/rect[@class='dl']"), 6u);
  EXPECT_NE(h.out.find("l2.trace.dataloader_share"), std::string::npos);
}

TEST(HtmlReport, UserTextIsEscaped) {
  // A trace file name is user input: it must come out as text, never as markup.
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("plumb-html-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path p = dir / "<b>&x'.json.gz";
  fs::copy_file(test::fixture("traces/corpus/kineto-resnet50-num-workers-4.json.gz"), p, fs::copy_options::overwrite_existing);
  auto h = test::run_plumb({"trace", p.string(), "--format", "html"});
  fs::remove_all(dir);
  EXPECT_EQ(h.out.find("<b>&x"), std::string::npos);
  EXPECT_NE(h.out.find("&lt;b&gt;&amp;x&#39;"), std::string::npos);
  std::string error;
  parse_html(h.out, error);
  EXPECT_TRUE(error.empty()) << error;
}

// A real browser: headless Chromium builds the DOM from the file with the Content-Security-Policy
// in force; the serialised DOM has the same articles and sections as the page we wrote.
TEST(HtmlReport, ChromiumRendersTheSameDocument) {
  const char* chromium = "/usr/bin/chromium";
  if (!std::filesystem::exists(chromium)) {
    GTEST_SKIP() << "Debian's chromium is not installed (scripts/deps.sh installs it)";
  }
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("plumb-chromium-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path out = dir / "report.html";
  auto h = test::run_plumb({"check", "--root", test::host_fixture("oom-xid"), "--format", "html", "--out", out.string()});
  ASSERT_TRUE(fs::exists(out)) << h.err;
  auto ours = read_user_file(out.string());
  ASSERT_TRUE(ours);
  RunOptions o;
  o.timeout = std::chrono::seconds(90);
  o.extra_env = {{"HOME", dir.string()}};
  auto r = run_program({chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions",
                        "--user-data-dir=" + (dir / "profile").string(), "--dump-dom", "file://" + out.string()},
                       o);
  fs::remove_all(dir);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->exit_code, 0) << r->err;
  auto count_of = [](const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
    return n;
  };
  EXPECT_GT(count_of(r->out, "<article class=\"finding"), 0u);
  EXPECT_EQ(count_of(r->out, "<article class=\"finding"), count_of(*ours, "<article class=\"finding"));
  EXPECT_EQ(count_of(r->out, "<section id="), count_of(*ours, "<section id="));
  EXPECT_EQ(count_of(r->out, "<table>"), count_of(*ours, "<table>"));
  EXPECT_EQ(count_of(r->out, "<dt>"), count_of(*ours, "<dt>"));
}

}  // namespace
}  // namespace plumb
