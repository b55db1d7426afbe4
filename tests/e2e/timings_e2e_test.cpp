// End-to-end: `plumb check --timings` prints a row per collector that ran and the totals on stderr,
// and adds facts.meta.timings to a JSON report; without the flag neither appears.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "core/json.h"
#include "golden.h"
#include "../test_util.h"

namespace plumb {
namespace {

using test::run_plumb;

json parse_timings(const RunOutput& r) {
  json j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.out.substr(0, 300) << r.err;
  return j;
}

// The ids of the collectors that ran, from facts.meta.collectors.
std::set<std::string> ran(const json& report) {
  std::set<std::string> ids;
  for (const auto& c : report["facts"]["meta"]["collectors"]) ids.insert(c["id"].get<std::string>());
  return ids;
}

// The stderr line whose first word is `id`, empty when none.
std::string row_of(const std::string& err, const std::string& id) {
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == id) return line;
  }
  return {};
}

TEST(Timings, JsonCarriesEachCollectorAndTheTotal) {
  auto r = run_plumb(golden::check_args("healthy", {"--format", "json", "--timings"}));
  ASSERT_LE(r.exit_code, 1) << r.err;
  json j = parse_timings(r);
  ASSERT_TRUE(j["facts"]["meta"].contains("timings")) << r.out.substr(0, 400);
  const json& t = j["facts"]["meta"]["timings"];
  auto expected = ran(j);
  ASSERT_GT(expected.size(), 3U);
  std::set<std::string> timed;
  double total = t["total_ms"].get<double>();
  double previous = 1e300;
  for (const auto& c : t["collectors"]) {
    timed.insert(c["id"].get<std::string>());
    double start = c["start_ms"].get<double>(), duration = c["duration_ms"].get<double>();
    EXPECT_GE(start, 0) << c.dump();
    EXPECT_GE(duration, 0) << c.dump();
    EXPECT_LE(duration, previous) << "not sorted by duration: " << c.dump();
    previous = duration;
    if (c["status"] == "ok") {
      // Each collector's own run lies inside the collection run.
      EXPECT_LE(start + duration, total + 0.01) << c.dump();
      EXPECT_GT(c["thread"].get<long>(), 0) << c.dump();
    }
  }
  EXPECT_EQ(timed, expected);
  EXPECT_GT(total, 0);
}

TEST(Timings, StderrTableHasARowPerCollectorAndTotals) {
  auto r = run_plumb(golden::check_args("healthy", {"--format", "json", "--timings"}));
  ASSERT_LE(r.exit_code, 1) << r.err;
  auto ids = ran(parse_timings(r));
  ASSERT_FALSE(ids.empty());
  EXPECT_NE(r.err.find("Collector timings"), std::string::npos) << r.err;
  for (const auto& id : ids) {
    std::string row = row_of(r.err, id);
    EXPECT_FALSE(row.empty()) << "no row for " << id << " in:\n" << r.err;
    EXPECT_NE(row.find("ok"), std::string::npos) << row;
  }
  EXPECT_NE(r.err.find("collectors run in parallel: " + std::to_string(ids.size()) + ";"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("from the first collector to here"), std::string::npos) << r.err;
  // The stdout report stays a plain JSON document.
  EXPECT_EQ(r.out.find("Collector timings"), std::string::npos);
}

TEST(Timings, OnlySelectedCollectorsGetRows) {
  auto r = run_plumb(golden::check_args("healthy", {"--format", "json", "--timings", "--only", "collect.cpu"}));
  ASSERT_LE(r.exit_code, 1) << r.err;
  json j = parse_timings(r);
  auto ids = ran(j);
  EXPECT_EQ(ids.count("collect.cpu"), 1U);
  EXPECT_EQ(j["facts"]["meta"]["timings"]["collectors"].size(), ids.size());
  EXPECT_FALSE(row_of(r.err, "collect.cpu").empty()) << r.err;
  EXPECT_TRUE(row_of(r.err, "collect.python").empty()) << r.err;
}

TEST(Timings, NothingExtraWithoutTheFlag) {
  auto r = run_plumb(golden::check_args("healthy", {"--format", "json"}));
  ASSERT_LE(r.exit_code, 1) << r.err;
  json j = parse_timings(r);
  EXPECT_FALSE(j["facts"]["meta"].contains("timings"));
  EXPECT_EQ(r.err.find("Collector timings"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("collectors run in parallel"), std::string::npos) << r.err;
}

TEST(Timings, TerminalReportKeepsTheTableOnStderrInChinese) {
  auto r = run_plumb(golden::check_args("healthy", {"--timings", "--lang", "zh"}));
  ASSERT_LE(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("采集器耗时"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("并行运行的采集器"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("采集器耗时"), std::string::npos);
  EXPECT_FALSE(row_of(r.err, "collect.cpu").empty()) << r.err;
}

TEST(Timings, SavedSnapshotCarriesThemAndReadsBack) {
  std::string snap = "/tmp/plumb-timings-e2e-" + std::to_string(::getpid()) + ".json";
  auto r = run_plumb(golden::check_args("healthy", {"--format", "md", "--timings", "--save", snap}));
  ASSERT_LE(r.exit_code, 1) << r.err;
  auto text = read_user_file(snap);
  ASSERT_TRUE(text) << text.error().message;
  json j = json::parse(*text, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_TRUE(j["facts"]["meta"].contains("timings"));
  auto again = run_plumb({"report", snap, "--format", "json"});
  EXPECT_LE(again.exit_code, 1) << again.err;
  ::unlink(snap.c_str());
}

}  // namespace
}  // namespace plumb
