// History database: record, list, load, baseline selection, import, and clear errors for a
// corrupted file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include <sqlite3.h>

#include "bench/stats.h"
#include "core/json.h"
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

TEST(HistoryDb, EarlierRunsAreThisHostsSameSettingsNewestFirstThenOldestFirst) {
  auto opened = HistoryDb::open(fresh_db("earlier"));
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  auto& db = *opened.value();
  std::vector<std::int64_t> ids;
  for (double copy : {20.0, 21.0, 22.0, 23.0}) ids.push_back(*db.record(run_with(copy, "6.1.0"), {}));
  Facts other_host = run_with(50, "6.1.0");
  other_host.meta.hostname = "node2";
  ASSERT_TRUE(db.record(other_host, {}).ok());
  Facts other_settings = run_with(60, "6.1.0");
  other_settings.bench.results[0].params["threads_all"] = "1";
  ASSERT_TRUE(db.record(other_settings, {}).ok());
  ASSERT_TRUE(db.record_imported("2026-11-01T00:00:00Z", "node1", "golden.json", run_with(70, "6.1.0").bench.results[0].metrics, {}).ok());
  // A stored run whose facts no longer read back is passed over, not an error.
  Facts broken = run_with(80, "6.1.0");
  auto broken_id = db.record(broken, {});
  ASSERT_TRUE(broken_id.ok());
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.path().c_str(), &raw), SQLITE_OK);
    std::string sql = "UPDATE runs SET facts = '{\"bench\": {\"results\": [{\"bench\": 7}]}}' WHERE id = " + std::to_string(*broken_id);
    EXPECT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
  }

  Facts now = run_with(24, "6.1.0");
  auto e = db.earlier_runs("node1", now.bench.results, 0, 3);
  ASSERT_TRUE(e.ok()) << e.error().message;
  ASSERT_EQ(e->size(), 1u);  // the skipped h2d result has no metric
  EXPECT_EQ((*e)[0].metric, "membw.copy.1t");
  EXPECT_EQ((*e)[0].run_ids, (std::vector<std::int64_t>{ids[1], ids[2], ids[3]}));  // the newest three, oldest first
  EXPECT_EQ((*e)[0].medians, (std::vector<double>{21, 22, 23}));
  // Before a given run: only older ones.
  auto before = db.earlier_runs("node1", now.bench.results, ids[2]);
  ASSERT_TRUE(before.ok());
  EXPECT_EQ((*before)[0].medians, (std::vector<double>{20, 21}));
  auto nobody = db.earlier_runs("node9", now.bench.results);
  ASSERT_TRUE(nobody.ok());
  EXPECT_TRUE((*nobody)[0].medians.empty());

  now.meta.hostname = "node1";
  attach_earlier_runs(now, &db);
  ASSERT_TRUE(now.bench.earlier.has());
  EXPECT_EQ(now.bench.earlier.source, db.path());
  EXPECT_EQ((*now.bench.earlier)[0].medians.size(), 4u);
  attach_earlier_runs(now, nullptr);
  EXPECT_FALSE(now.bench.earlier.has());
  EXPECT_NE(now.bench.earlier.why().find("--no-history"), std::string::npos);
}

long long file_size(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
}

TEST(HistoryDb, TheLogOutlivesTheConnectionUntilItIsLargeThenTheNextOpenCopiesIt) {
  std::string path = fresh_db("wal");
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  Facts big = run_with(10, "6.1.0");
  big.meta.root = std::string(std::size_t{200} * 1024, 'x');  // ~200 KB of log per run
  int recorded = 0;
  while (file_size(path + "-wal") <= kWalCheckpointBytes) {
    auto db = HistoryDb::open(path);
    ASSERT_TRUE(db.ok()) << db.error().message;
    ASSERT_TRUE(db.value()->record(big, {}).ok());
    ++recorded;
    ASSERT_LT(recorded, 20);
  }  // each connection closed without copying its log into the database
  EXPECT_GT(recorded, 1);
  {
    auto db = HistoryDb::open(path);  // finds the log above the limit: copies and empties it
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(file_size(path + "-wal"), 0);
    auto runs = db.value()->runs();
    ASSERT_TRUE(runs.ok());
    EXPECT_EQ(runs->size(), static_cast<std::size_t>(recorded));
  }
  // What a reader sees does not depend on where the rows are: log or database.
  auto db = HistoryDb::open(path, false);
  ASSERT_TRUE(db.ok());
  auto one = db.value()->load(1);
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->facts.meta.root.size(), big.meta.root.size());
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

// Sets environment variables for one test and puts back what was there (the test binary runs its
// tests on one thread: nothing else reads the environment meanwhile).
class EnvVars {
 public:
  EnvVars(std::initializer_list<const char*> names) {
    for (const char* n : names) {
      const char* v = std::getenv(n);  // NOLINT(concurrency-mt-unsafe)
      saved_.emplace_back(n, v != nullptr ? std::optional<std::string>(v) : std::nullopt);
    }
  }
  EnvVars(const EnvVars&) = delete;
  EnvVars& operator=(const EnvVars&) = delete;
  ~EnvVars() {
    for (const auto& [n, v] : saved_) {
      if (v) {
        ::setenv(n.c_str(), v->c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
      } else {
        ::unsetenv(n.c_str());  // NOLINT(concurrency-mt-unsafe)
      }
    }
  }
  static void set(const char* n, const char* v) { ::setenv(n, v, 1); }  // NOLINT(concurrency-mt-unsafe)
  static void unset(const char* n) { ::unsetenv(n); }                    // NOLINT(concurrency-mt-unsafe)

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(HistoryDb, DefaultPathFollowsXdg) {
  EnvVars env{"PLUMB_DB", "XDG_STATE_HOME", "HOME"};
  EnvVars::set("PLUMB_DB", "");
  EnvVars::set("XDG_STATE_HOME", "/x/state");
  EXPECT_EQ(default_db_path(), "/x/state/plumb/plumb.db");
  EnvVars::unset("XDG_STATE_HOME");
  EnvVars::set("HOME", "/home/u");
  EXPECT_EQ(default_db_path(), "/home/u/.local/state/plumb/plumb.db");
  EnvVars::set("PLUMB_DB", "/tmp/p.db");
  EXPECT_EQ(default_db_path(), "/tmp/p.db");
}

}  // namespace
}  // namespace plumb

namespace plumb {
namespace {

// The stored texts of run `id` (facts, findings), read with SQLite directly.
std::pair<std::string, std::string> stored_texts(const std::string& path, std::int64_t id) {
  sqlite3* raw = nullptr;
  std::pair<std::string, std::string> out;
  if (sqlite3_open(path.c_str(), &raw) != SQLITE_OK) return out;
  sqlite3_stmt* s = nullptr;
  std::string sql = "SELECT facts, findings FROM runs WHERE id = " + std::to_string(id);
  if (sqlite3_prepare_v2(raw, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
    out.first = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));   // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast): SQLite's text is unsigned char
    out.second = reinterpret_cast<const char*>(sqlite3_column_text(s, 1));  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  }
  sqlite3_finalize(s);
  sqlite3_close(raw);
  return out;
}

TEST(HistoryDb, StoresFactsAndFindingsAsTheJsonLibraryPrintsThem) {
  auto opened = HistoryDb::open(fresh_db("texts"));
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  auto& db = *opened.value();
  Facts f = run_with(30, "6.1.0");
  f.host.process.environ = Fact<std::map<std::string, std::string>>::of({{"BAD", "x\xff y"}}, "/proc/1/environ");
  std::vector<Finding> findings(3);
  findings[0].id = "l3.host.swap";
  findings[0].status = Status::warn;
  findings[1].id = "l2.gpu.util";
  findings[1].args["value"] = "bad \xfe byte";
  findings[2].id = "l3.framework.tf32";
  auto id = db.record(f, findings);
  ASSERT_TRUE(id.ok()) << id.error().message;
  auto stored = stored_texts(db.path(), *id);
  EXPECT_EQ(stored.first, json(f).dump(-1, ' ', false, json::error_handler_t::replace));
  EXPECT_EQ(stored.second, json(findings).dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace
}  // namespace plumb
