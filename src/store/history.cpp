// SQLite history: schema, one-transaction inserts, queries for history/compare/baseline.
#include "store/history.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <system_error>

#include "bench/compare.h"
#include "core/host_root.h"
#include "core/json.h"
#include "store/baseline_file.h"

namespace plumb {

namespace {

constexpr int kSchemaVersion = 1;

const char* kSchema = R"SQL(
CREATE TABLE IF NOT EXISTS plumb_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  started_at TEXT NOT NULL,
  command TEXT NOT NULL,
  hostname TEXT NOT NULL,
  benches TEXT NOT NULL,
  environment TEXT NOT NULL,
  facts TEXT NOT NULL,
  findings TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS metrics(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  unit TEXT NOT NULL,
  higher_is_better INTEGER NOT NULL,
  samples INTEGER NOT NULL,
  median REAL NOT NULL, min REAL NOT NULL, max REAL NOT NULL, cv_pct REAL NOT NULL,
  vals TEXT NOT NULL,
  PRIMARY KEY(run_id, name));
CREATE TABLE IF NOT EXISTS baseline(slot TEXT PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id));
)SQL";

// A prepared statement that finalises itself.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  [[nodiscard]] bool ok() const { return rc_ == SQLITE_OK; }
  Stmt& bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  Stmt& bind(int i, double v) {
    sqlite3_bind_double(s_, i, v);
    return *this;
  }
  int step() { return sqlite3_step(s_); }
  std::string text(int c) {
    const unsigned char* t = sqlite3_column_text(s_, c);
    return t == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(t));
  }
  std::int64_t i64(int c) { return sqlite3_column_int64(s_, c); }
  double dbl(int c) { return sqlite3_column_double(s_, c); }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_ = SQLITE_ERROR;
};

int mkdirs(const std::string& dir) {
  if (dir.empty()) return 0;
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
  auto slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    int e = mkdirs(dir.substr(0, slash));
    if (e != 0) return e;
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return errno;
  return 0;
}

std::string benches_of(const Facts& f) {
  std::string s;
  for (const auto& r : f.bench.results) s += (s.empty() ? "" : ",") + r.bench;
  return s;
}

RunSummary summary_from(Stmt& s) {
  RunSummary r;
  r.id = s.i64(0);
  r.started_at = s.text(1);
  r.command = s.text(2);
  r.hostname = s.text(3);
  r.benches = s.text(4);
  r.metrics = static_cast<int>(s.i64(5));
  r.baseline = s.i64(6) != 0;
  return r;
}

constexpr const char* kSummaryCols =
    "r.id, r.started_at, r.command, r.hostname, r.benches, (SELECT COUNT(*) FROM metrics m WHERE m.run_id = r.id), "
    "EXISTS(SELECT 1 FROM baseline b WHERE b.run_id = r.id)";

}  // namespace

std::string default_db_path() {
  const char* env = std::getenv("PLUMB_DB");  // NOLINT(concurrency-mt-unsafe)
  if (env != nullptr && *env != '\0') return env;
  const char* xdg = std::getenv("XDG_STATE_HOME");  // NOLINT(concurrency-mt-unsafe)
  if (xdg != nullptr && *xdg == '/') return std::string(xdg) + "/plumb/plumb.db";
  const char* home = std::getenv("HOME");  // NOLINT(concurrency-mt-unsafe)
  return std::string(home != nullptr && *home != '\0' ? home : ".") + "/.local/state/plumb/plumb.db";
}

std::vector<BenchMetric> metrics_of(const Facts& facts) {
  std::vector<BenchMetric> out;
  for (const auto& r : facts.bench.results) {
    if (r.status != "ok") continue;
    for (const auto& m : r.metrics) {
      if (m.samples > 0) out.push_back(m);
    }
  }
  return out;
}

Error HistoryDb::sql_error(const std::string& what) const {
  int code = sqlite3_errcode(db_);
  std::string msg = sqlite3_errmsg(db_);
  ErrorKind k = ErrorKind::io;
  if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
    msg = "not a usable plumb history database (" + msg + "); move it away or use --db PATH";
    k = ErrorKind::invalid;
  } else if (code == SQLITE_FULL) {
    msg = "disk full (" + msg + ")";
  } else if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM) {
    k = ErrorKind::denied;
  }
  return make_error(k, "history database " + path_ + ": " + what + ": " + msg);
}

Result<bool> HistoryDb::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    sqlite3_free(err);
    return sql_error("query failed");
  }
  return true;
}

Result<std::unique_ptr<HistoryDb>> HistoryDb::open(const std::string& path, bool create) {
  if (create) {
    auto slash = path.find_last_of('/');
    if (slash != std::string::npos && slash > 0) {
      int e = mkdirs(path.substr(0, slash));
      if (e != 0) return make_error(error_kind_from_errno(e), "history database " + path + ": cannot create its directory: " + errno_text(e));
    }
  } else {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return make_error(ErrorKind::absent, "history database " + path + " does not exist");
  }
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  std::unique_ptr<HistoryDb> db(new HistoryDb(raw, path));
  if (rc != SQLITE_OK) {
    std::string msg = raw != nullptr ? sqlite3_errmsg(raw) : "out of memory";
    return make_error(ErrorKind::io, "history database " + path + ": cannot open: " + msg);
  }
  sqlite3_busy_timeout(raw, 5000);  // several plumb runs may record at once
  if (auto r = db->exec("PRAGMA foreign_keys = ON"); !r) return r.error();
  // Write-ahead log with NORMAL syncing (SQLite's documented pairing, sqlite.org/wal.html and
  // pragma.html#pragma_synchronous): a commit appends to the log without an fsync, so recording a
  // run no longer waits on the disk (it cost ~80 ms per `plumb check` on a busy disk); after a power
  // loss the last runs recorded may be missing, the database stays consistent. Where WAL cannot be
  // used (a read-only directory, a file system without shared memory) SQLite keeps its rollback
  // journal and the pragma changes nothing.
  (void)db->exec("PRAGMA journal_mode = WAL");
  if (auto r = db->exec("PRAGMA synchronous = NORMAL"); !r) return r.error();
  // The last connection to close would copy the log into the database and sync both, 1-2 ms at
  // the end of every check (docs/performance.md), so it leaves the log (plumb.db-wal, read by
  // every later connection; SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, sqlite.org/c3ref/c_dbconfig_defensive.html).
  // The copy happens here instead, when the log has grown past kWalCheckpointBytes (about twenty
  // checks): `plumb check` opens the database on its own thread while its collectors run.
  // SQLite's own checkpoint at 1000 log pages remains the backstop.
  (void)sqlite3_db_config(raw, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  if (struct stat wal {}; ::stat((path + "-wal").c_str(), &wal) == 0 && wal.st_size > kWalCheckpointBytes) {
    (void)db->exec("PRAGMA wal_checkpoint(TRUNCATE)");  // busy (another plumb writing): next time
  }
  if (auto r = db->exec(std::string("BEGIN IMMEDIATE;") + kSchema); !r) {
    db->rollback();
    return r.error();
  }
  {
    Stmt s(raw, "SELECT value FROM plumb_meta WHERE key = 'schema_version'");
    if (!s.ok()) {
      db->rollback();
      return db->sql_error("reading the schema version");
    }
    if (s.step() == SQLITE_ROW) {
      std::string v = s.text(0);
      if (v != std::to_string(kSchemaVersion)) {
        db->rollback();
        return make_error(ErrorKind::unsupported, "history database " + path + " has schema version " + v + "; this plumb reads version " +
                                                      std::to_string(kSchemaVersion));
      }
    } else {
      Stmt ins(raw, "INSERT INTO plumb_meta(key, value) VALUES('schema_version', ?1)");
      ins.bind(1, std::to_string(kSchemaVersion));
      if (ins.step() != SQLITE_DONE) {
        db->rollback();
        return db->sql_error("writing the schema version");
      }
    }
  }
  if (auto r = db->exec("COMMIT"); !r) {
    db->rollback();
    return r.error();
  }
  return db;
}

HistoryDb::~HistoryDb() { sqlite3_close_v2(db_); }

namespace {
Result<bool> insert_metrics(sqlite3* db, std::int64_t run, const std::vector<BenchMetric>& ms) {
  for (const auto& m : ms) {
    Stmt s(db,
           "INSERT OR REPLACE INTO metrics(run_id, name, unit, higher_is_better, samples, median, min, max, cv_pct, vals) "
           "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
    if (!s.ok()) return make_error(ErrorKind::io, "prepare");
    s.bind(1, run).bind(2, m.name).bind(3, m.unit).bind(4, static_cast<std::int64_t>(m.higher_is_better ? 1 : 0));
    s.bind(5, static_cast<std::int64_t>(m.samples)).bind(6, m.median).bind(7, m.min).bind(8, m.max).bind(9, m.cv_pct);
    s.bind(10, json(m.values).dump());
    if (s.step() != SQLITE_DONE) return make_error(ErrorKind::io, "insert metric");
  }
  return true;
}
}  // namespace

Result<std::int64_t> HistoryDb::finish_run(bool inserted, const std::vector<BenchMetric>& metrics, const std::string& what) {
  std::int64_t id = inserted ? sqlite3_last_insert_rowid(db_) : 0;
  bool ok = inserted && insert_metrics(db_, id, metrics).ok();
  if (!ok) {
    Error e = sql_error(what);
    rollback();
    return e;
  }
  if (auto r = exec("COMMIT"); !r) {
    rollback();
    return r.error();
  }
  return id;
}

std::string finding_record_text(const Finding& f) { return dump_text(json(f)); }

Result<std::int64_t> HistoryDb::record(const Facts& facts, const std::vector<Finding>& findings) {
  // Printed before the transaction begins: it holds the database's write lock. The findings as
  // the JSON library prints the array (values read from the machine may hold invalid UTF-8: replaced).
  const std::string facts_json = dump_text(json(facts));
  std::string findings_json = "[";
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (i > 0) findings_json += ',';
    findings_json += finding_record_text(findings[i]);
  }
  findings_json += ']';
  if (auto r = exec("BEGIN IMMEDIATE"); !r) return r.error();
  Stmt s(db_, "INSERT INTO runs(started_at, command, hostname, benches, environment, facts, findings) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  bool ok = s.ok();
  if (ok) {
    s.bind(1, facts.meta.started_at).bind(2, facts.meta.command).bind(3, facts.meta.hostname).bind(4, benches_of(facts));
    s.bind(5, json(run_environment(facts)).dump()).bind(6, facts_json).bind(7, findings_json);
    ok = s.step() == SQLITE_DONE;
  }
  return finish_run(ok, metrics_of(facts), "recording the run");
}

Result<std::int64_t> HistoryDb::record_imported(const std::string& started_at, const std::string& hostname, const std::string& origin,
                                                const std::vector<BenchMetric>& metrics,
                                                const std::map<std::string, std::string>& env) {
  Facts f;
  f.meta.started_at = started_at;
  f.meta.hostname = hostname;
  f.meta.command = "import";
  f.meta.root = origin;
  if (auto r = exec("BEGIN IMMEDIATE"); !r) return r.error();
  Stmt s(db_, "INSERT INTO runs(started_at, command, hostname, benches, environment, facts, findings) VALUES(?1, 'import', ?2, ?3, ?4, ?5, '[]')");
  bool ok = s.ok();
  if (ok) {
    s.bind(1, started_at).bind(2, hostname).bind(3, origin).bind(4, json(env).dump()).bind(5, json(f).dump());
    ok = s.step() == SQLITE_DONE;
  }
  return finish_run(ok, metrics, "importing the baseline");
}

Result<std::vector<RunSummary>> HistoryDb::runs(const std::string& metric, int limit) {
  std::string sql = std::string("SELECT ") + kSummaryCols + " FROM runs r" +
                    (metric.empty() ? "" : " WHERE EXISTS(SELECT 1 FROM metrics m WHERE m.run_id = r.id AND m.name = ?2)") +
                    " ORDER BY r.id DESC LIMIT ?1";
  Stmt s(db_, sql.c_str());
  if (!s.ok()) return sql_error("listing runs");
  s.bind(1, static_cast<std::int64_t>(limit));
  if (!metric.empty()) s.bind(2, metric);
  std::vector<RunSummary> out;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) out.push_back(summary_from(s));
  if (rc != SQLITE_DONE) return sql_error("listing runs");
  return out;
}

Result<StoredRun> HistoryDb::load(std::int64_t id) {
  std::string sql = std::string("SELECT ") + kSummaryCols + ", r.facts, r.environment FROM runs r WHERE r.id = ?1";
  Stmt s(db_, sql.c_str());
  if (!s.ok()) return sql_error("loading a run");
  s.bind(1, id);
  int rc = s.step();
  if (rc == SQLITE_DONE) return make_error(ErrorKind::absent, "no run " + std::to_string(id) + " in " + path_ + " (see plumb history)");
  if (rc != SQLITE_ROW) return sql_error("loading run " + std::to_string(id));
  StoredRun run;
  run.summary = summary_from(s);
  // The database is a file like any other: its JSON is checked as a user's would be.
  json fj = parse_outside_json(s.text(7)).value_or(json(json::value_t::discarded));
  json ej = parse_outside_json(s.text(8)).value_or(json(json::value_t::discarded));
  try {
    if (!fj.is_discarded()) run.facts = fj.get<Facts>();
    if (ej.is_object()) {
      for (const auto& [k, v] : ej.items()) {
        if (v.is_string()) run.environment[k] = v.get<std::string>();
      }
    }
  } catch (const std::exception& e) {
    return make_error(ErrorKind::invalid, "history database " + path_ + ": run " + std::to_string(id) + " is unreadable: " + e.what());
  }
  Stmt m(db_, "SELECT name, unit, higher_is_better, samples, median, min, max, cv_pct, vals FROM metrics WHERE run_id = ?1 ORDER BY rowid");
  if (!m.ok()) return sql_error("loading metrics");
  m.bind(1, id);
  while ((rc = m.step()) == SQLITE_ROW) {
    BenchMetric bm;
    bm.name = m.text(0);
    bm.unit = m.text(1);
    bm.higher_is_better = m.i64(2) != 0;
    bm.samples = static_cast<int>(m.i64(3));
    bm.median = m.dbl(4);
    bm.min = m.dbl(5);
    bm.max = m.dbl(6);
    bm.cv_pct = m.dbl(7);
    json v = parse_outside_json(m.text(8)).value_or(json());
    if (v.is_array()) {
      for (const auto& x : v) {
        if (x.is_number()) bm.values.push_back(x.get<double>());
      }
    }
    run.metrics.push_back(std::move(bm));
  }
  if (rc != SQLITE_DONE) return sql_error("loading metrics");
  return run;
}

Result<std::int64_t> HistoryDb::latest_with_metrics() {
  Stmt s(db_, "SELECT r.id FROM runs r WHERE EXISTS(SELECT 1 FROM metrics m WHERE m.run_id = r.id) AND r.command <> 'import' ORDER BY r.id DESC LIMIT 1");
  if (!s.ok()) return sql_error("finding the latest run");
  int rc = s.step();
  if (rc == SQLITE_ROW) return s.i64(0);
  if (rc == SQLITE_DONE) return make_error(ErrorKind::absent, "no run with measurements in " + path_ + " (run plumb bench ... first)");
  return sql_error("finding the latest run");
}

Result<bool> HistoryDb::set_baseline(std::int64_t id) {
  {
    Stmt s(db_, "SELECT 1 FROM runs WHERE id = ?1");
    if (!s.ok()) return sql_error("setting the baseline");
    s.bind(1, id);
    if (s.step() != SQLITE_ROW) return make_error(ErrorKind::absent, "no run " + std::to_string(id) + " in " + path_ + " (see plumb history)");
  }
  Stmt s(db_, "INSERT OR REPLACE INTO baseline(slot, run_id) VALUES('default', ?1)");
  if (!s.ok()) return sql_error("setting the baseline");
  s.bind(1, id);
  if (s.step() != SQLITE_DONE) return sql_error("setting the baseline");
  return true;
}

Result<std::optional<std::int64_t>> HistoryDb::baseline_id() {
  Stmt s(db_, "SELECT run_id FROM baseline WHERE slot = 'default'");
  if (!s.ok()) return sql_error("reading the baseline");
  int rc = s.step();
  if (rc == SQLITE_ROW) return std::optional<std::int64_t>(s.i64(0));
  if (rc == SQLITE_DONE) return std::optional<std::int64_t>();
  return sql_error("reading the baseline");
}

Result<std::vector<std::pair<RunSummary, BenchMetric>>> HistoryDb::metric_history(const std::string& metric, int limit) {
  std::string sql = std::string("SELECT ") + kSummaryCols +
                    ", m.unit, m.higher_is_better, m.samples, m.median, m.min, m.max, m.cv_pct FROM runs r JOIN metrics m ON m.run_id = r.id "
                    "WHERE m.name = ?1 ORDER BY r.id DESC LIMIT ?2";
  Stmt s(db_, sql.c_str());
  if (!s.ok()) return sql_error("reading metric history");
  s.bind(1, metric).bind(2, static_cast<std::int64_t>(limit));
  std::vector<std::pair<RunSummary, BenchMetric>> out;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    BenchMetric m;
    m.name = metric;
    m.unit = s.text(7);
    m.higher_is_better = s.i64(8) != 0;
    m.samples = static_cast<int>(s.i64(9));
    m.median = s.dbl(10);
    m.min = s.dbl(11);
    m.max = s.dbl(12);
    m.cv_pct = s.dbl(13);
    out.emplace_back(summary_from(s), m);
  }
  if (rc != SQLITE_DONE) return sql_error("reading metric history");
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<BenchResult> stored_bench_results(std::string_view text) {
  json v = parse_outside_json(text).value_or(json());
  if (!v.is_array()) return {};
  try {
    return v.get<std::vector<BenchResult>>();
  } catch (const json::exception&) {
    return {};  // a run stored by a build whose facts no longer read back, or an edited file
  }
}

Result<std::vector<MetricRuns>> HistoryDb::earlier_runs(const std::string& hostname, const std::vector<BenchResult>& current,
                                                        std::int64_t before, int per_metric, int scan) {
  std::vector<MetricRuns> out;
  // Each measured metric, with the result (benchmark and parameters) it came from.
  std::vector<const BenchResult*> from;
  for (const auto& r : current) {
    if (r.status != "ok") continue;
    for (const auto& m : r.metrics) {
      if (m.samples <= 0) continue;
      MetricRuns x;
      x.metric = m.name;
      out.push_back(std::move(x));
      from.push_back(&r);
    }
  }
  if (out.empty()) return out;
  // Only the benchmark results of each run are read: the facts of a check are far larger.
  Stmt s(db_,
         "SELECT r.id, CASE WHEN json_valid(r.facts) THEN json_extract(r.facts, '$.bench.results') END FROM runs r "
         "WHERE r.hostname = ?1 AND r.command <> 'import' AND r.id < ?2 "
         "AND EXISTS(SELECT 1 FROM metrics m WHERE m.run_id = r.id) ORDER BY r.id DESC LIMIT ?3");
  if (!s.ok()) return sql_error("reading earlier runs");
  s.bind(1, hostname).bind(2, before > 0 ? before : std::numeric_limits<std::int64_t>::max()).bind(3, static_cast<std::int64_t>(scan));
  auto full = [&] {
    return std::all_of(out.begin(), out.end(), [&](const MetricRuns& x) { return static_cast<int>(x.medians.size()) >= per_metric; });
  };
  int rc = SQLITE_DONE;
  while (!full() && (rc = s.step()) == SQLITE_ROW) {
    std::int64_t id = s.i64(0);
    std::vector<BenchResult> results = stored_bench_results(s.text(1));
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (static_cast<int>(out[i].medians.size()) >= per_metric) continue;
      for (const auto& r : results) {
        if (r.status != "ok" || r.bench != from[i]->bench || r.params != from[i]->params) continue;
        auto m = std::find_if(r.metrics.begin(), r.metrics.end(),
                              [&](const BenchMetric& x) { return x.name == out[i].metric && x.samples > 0; });
        if (m == r.metrics.end()) continue;
        out[i].run_ids.push_back(id);
        out[i].medians.push_back(m->median);
        break;
      }
    }
  }
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) return sql_error("reading earlier runs");
  for (auto& x : out) {
    std::reverse(x.run_ids.begin(), x.run_ids.end());
    std::reverse(x.medians.begin(), x.medians.end());
  }
  return out;
}

void attach_earlier_runs(Facts& facts, HistoryDb* db, std::int64_t before) {
  if (db == nullptr) {
    facts.bench.earlier = Fact<std::vector<MetricRuns>>::none("history disabled (--no-history)");
    return;
  }
  auto e = db->earlier_runs(facts.meta.hostname, facts.bench.results, before);
  if (!e) {
    facts.bench.earlier = Fact<std::vector<MetricRuns>>::none(e.error().message, db->path());
    return;
  }
  facts.bench.earlier = Fact<std::vector<MetricRuns>>::of(std::move(*e), db->path());
}

Fact<BaselineFacts> load_baseline(HistoryDb& db, const std::string& spec) {
  BaselineFacts b;
  std::int64_t id = 0;
  if (!spec.empty() && spec.find_first_not_of("0123456789") == std::string::npos && spec.size() < 18) {
    id = std::stoll(spec);
  } else if (!spec.empty()) {
    auto text = read_user_file(spec, 64u << 20);
    if (!text) return Fact<BaselineFacts>::none("cannot read baseline file: " + text.error().message, spec);
    auto f = parse_baseline_file(*text);
    if (!f) return Fact<BaselineFacts>::none(spec + ": " + f.error().message, spec);
    b.origin = spec;
    b.run_started_at = f->started_at;
    b.hostname = f->hostname;
    b.metrics = f->metrics;
    b.environment = f->environment;
    return Fact<BaselineFacts>::of(b, spec);
  } else {
    auto bid = db.baseline_id();
    if (!bid) return Fact<BaselineFacts>::none(bid.error().message, db.path());
    if (!*bid) return Fact<BaselineFacts>::none("no baseline set in " + db.path() + " (plumb baseline set RUN)", db.path());
    id = **bid;
  }
  auto run = db.load(id);
  if (!run) return Fact<BaselineFacts>::none(run.error().message, db.path());
  b.origin = "run " + std::to_string(id) + " (" +
             (run->summary.command == "import" ? "imported from " + run->summary.benches : db.path()) + ")";
  b.run_started_at = run->summary.started_at;
  b.hostname = run->summary.hostname;
  b.metrics = run->metrics;
  b.environment = run->environment;
  return Fact<BaselineFacts>::of(b, b.origin);
}

}  // namespace plumb
