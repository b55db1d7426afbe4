// History and baselines in an embedded SQLite database: every check and bench run with its facts,
// findings and metrics; one run marked as the baseline. Each run is written in one transaction,
// so an interrupted run leaves no half-written record.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts.h"
#include "core/finding.h"
#include "core/result.h"

struct sqlite3;

namespace plumb {

// $PLUMB_DB, else $XDG_STATE_HOME/plumb/plumb.db, else ~/.local/state/plumb/plumb.db.
std::string default_db_path();

struct RunSummary {
  std::int64_t id = 0;
  std::string started_at, command, hostname, benches;
  int metrics = 0;
  bool baseline = false;
};

struct StoredRun {
  RunSummary summary;
  Facts facts;
  std::vector<BenchMetric> metrics;
  std::map<std::string, std::string> environment;
};

// The write-ahead log is copied into the database when a connection opens it and finds the log
// above this size, not when the last connection closes (see HistoryDb::open).
inline constexpr long long kWalCheckpointBytes = 1LL << 20;

// One finding as the history database stores it in a run's findings array (compact JSON).
std::string finding_record_text(const Finding& f);

class HistoryDb {
 public:
  // Opens (creating the file and its directory when `create`) and checks the schema. A file that
  // is not a plumb database gives an error that says so and names the file.
  static Result<std::unique_ptr<HistoryDb>> open(const std::string& path, bool create = true);
  ~HistoryDb();
  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  // Stores a run (facts, findings, metrics of every benchmark result) and returns its id.
  Result<std::int64_t> record(const Facts& facts, const std::vector<Finding>& findings);
  // Stores a baseline imported from a file as a run of command "import".
  Result<std::int64_t> record_imported(const std::string& started_at, const std::string& hostname, const std::string& origin,
                                       const std::vector<BenchMetric>& metrics, const std::map<std::string, std::string>& env);
  // Newest first; with a metric name only runs that have it.
  Result<std::vector<RunSummary>> runs(const std::string& metric = "", int limit = 50);
  Result<StoredRun> load(std::int64_t id);
  // The newest run that has at least one metric (what `compare` takes by default).
  Result<std::int64_t> latest_with_metrics();
  Result<bool> set_baseline(std::int64_t id);
  Result<std::optional<std::int64_t>> baseline_id();
  // For each metric of `current`'s measured results: its medians in the newest `per_metric` earlier
  // runs on `hostname` that ran the same benchmark with the same parameters, oldest first. Only runs
  // with an id below `before` count (0: every run); imports do not (another machine's figures); at
  // most `scan` runs of that host are read. A stored run whose facts cannot be read is passed over.
  Result<std::vector<MetricRuns>> earlier_runs(const std::string& hostname, const std::vector<BenchResult>& current,
                                               std::int64_t before = 0, int per_metric = 10, int scan = 200);
  // One metric across runs (oldest first) for `plumb history METRIC`.
  Result<std::vector<std::pair<RunSummary, BenchMetric>>> metric_history(const std::string& metric, int limit = 50);

 private:
  HistoryDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Result<bool> exec(const std::string& sql);
  // Best effort: a failed rollback leaves SQLite to roll back when the connection closes.
  void rollback() { (void)exec("ROLLBACK"); }
  Error sql_error(const std::string& what) const;
  // The tail of an insert into runs inside BEGIN IMMEDIATE: the new run's metrics, then COMMIT, or a rollback
  // and an error about `what` when the run row (`inserted` false) or a metric could not be written.
  Result<std::int64_t> finish_run(bool inserted, const std::vector<BenchMetric>& metrics, const std::string& what);
  sqlite3* db_;
  std::string path_;
};

// All metrics of a run's benchmark results, in result order.
std::vector<BenchMetric> metrics_of(const Facts& facts);

// The benchmark results of a stored run (the JSON array at facts.bench.results); empty when the
// text is not such an array. The database is a file its user can edit: nothing in it is trusted.
std::vector<BenchResult> stored_bench_results(std::string_view text);

// Fills facts.bench.earlier from the database (earlier_runs for this run's host and results), or
// says why it could not: no database, an unreadable one.
void attach_earlier_runs(Facts& facts, HistoryDb* db, std::int64_t before = 0);

// Loads the baseline (from `spec`: a run id, a baseline JSON file, or empty for the database's
// baseline) as BaselineFacts for the rules. Missing baseline is a Fact::none with the reason.
Fact<BaselineFacts> load_baseline(HistoryDb& db, const std::string& spec);

}  // namespace plumb
