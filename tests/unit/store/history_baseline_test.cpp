// History database: record, list, load, baseline selection, import, and clear errors for a
// corrupted file.
#include <gtest/gtest.h>

#include <fstream>

#include "bench/stats.h"
#include "store/baseline_file.h"
#include "store/history.h"
#include "../../test_util.h"

namespace plumb {
namespace {

std::string fresh_db(const std::string& name) {
  std::string p = ::testing::TempDir() + "/plumb-store-" + name + "-" + std::to_string(::getpid()) + ".db";
  std::remove(p.c_str());
  return p;
}

Facts run_with(double copy, const std::string& kernel) {
  Facts f;
  f.meta.command = "bench membw";
  f.meta.started_at = "2026-11-29T10:00:00Z";
  f.meta.hostname = "node1";
  BenchResult r;
  r.bench = "membw";
  r.metrics.push_back(make_metric("membw.copy.1t", "GB/s", true, {copy, copy + 1, copy - 1}));
  r.context.kernel = Fact<std::string>::of(kernel, "/proc/sys/kernel/osrelease");
  r.params["threads_all"] = "2";
  f.bench.results.push_back(r);
  BenchResult skipped;
  skipped.bench = "h2d";
  skipped.status = "skipped";
  skipped.reason = "no GPU";
  f.bench.results.push_back(skipped);
  return f;
}

TEST(HistoryDb, RecordsRunsAndBaselinesRoundTrip) {
  auto opened = HistoryDb::open(fresh_db("roundtrip"));
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  auto& db = *opened.value();
  auto none = load_baseline(db, "");
  EXPECT_FALSE(none.has());
  EXPECT_NE(none.why().find("no baseline set"), std::string::npos);
  auto a = db.record(run_with(10, "6.1.0"), {});
  auto b = db.record(run_with(7, "6.5.0"), {});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*b, *a + 1);
  auto runs = db.runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ(runs->front().id, *b);  // newest first
  EXPECT_EQ(runs->front().metrics, 1);
  EXPECT_EQ(runs->front().benches, "membw,h2d");
  auto latest = db.latest_with_metrics();
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(*latest, *b);
  ASSERT_TRUE(db.set_baseline(*a).ok());
  EXPECT_FALSE(db.set_baseline(999).ok());
  auto base = load_baseline(db, "");
  ASSERT_TRUE(base.has()) << base.why();
  EXPECT_EQ(base->metrics.size(), 1u);
  EXPECT_DOUBLE_EQ(base->metrics[0].median, 10);
  EXPECT_EQ(base->environment.at("kernel"), "6.1.0");
  auto loaded = db.load(*b);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->facts.bench.results.size(), 2u);
  EXPECT_EQ(loaded->metrics[0].values, (std::vector<double>{7, 8, 6}));
  auto hist = db.metric_history("membw.copy.1t");
  ASSERT_TRUE(hist.ok());
  ASSERT_EQ(hist->size(), 2u);
  EXPECT_TRUE(hist->front().first.baseline);  // oldest first, and it is the baseline
  EXPECT_FALSE(db.load(12345).ok());
  EXPECT_FALSE(load_baseline(db, "12345").has());
}

TEST(HistoryDb, ImportedBaselineBecomesARun) {
  auto opened = HistoryDb::open(fresh_db("import"));
  ASSERT_TRUE(opened.ok());
  auto& db = *opened.value();
  auto file = parse_baseline_file(test::read_fixture("bench/baseline-v1.json"));
  ASSERT_TRUE(file.ok());
  auto id = db.record_imported(file->started_at, file->hostname, "baseline-v1.json", file->metrics, file->environment);
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(db.set_baseline(*id).ok());
  auto b = load_baseline(db, "");
  ASSERT_TRUE(b.has());
  EXPECT_EQ(b->metrics.size(), 4u);
  // Imported runs are not "the latest measured run".
  EXPECT_FALSE(db.latest_with_metrics().ok());
  auto from_file = load_baseline(db, test::fixture("bench/baseline-v1.json"));
  ASSERT_TRUE(from_file.has());
  EXPECT_EQ(from_file->hostname, file->hostname);
  EXPECT_FALSE(load_baseline(db, "/nonexistent/baseline.json").has());
}

TEST(HistoryDb, CorruptedFileGivesAClearError) {
  std::string p = fresh_db("corrupt");
  { std::ofstream(p) << "this is not a database, just some text that is long enough to be looked at by sqlite........"; }
  auto db = HistoryDb::open(p);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().message.find("not a usable plumb history database"), std::string::npos);
  EXPECT_NE(db.error().message.find(p), std::string::npos);
  auto missing = HistoryDb::open(fresh_db("missing"), false);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos);
}

TEST(HistoryDb, DefaultPathFollowsXdg) {
  ::setenv("PLUMB_DB", "", 1);
  ::setenv("XDG_STATE_HOME", "/x/state", 1);
  EXPECT_EQ(default_db_path(), "/x/state/plumb/plumb.db");
  ::unsetenv("XDG_STATE_HOME");
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(default_db_path(), "/home/u/.local/state/plumb/plumb.db");
  ::setenv("PLUMB_DB", "/tmp/p.db", 1);
  EXPECT_EQ(default_db_path(), "/tmp/p.db");
  ::unsetenv("PLUMB_DB");
}

}  // namespace
}  // namespace plumb
