// The agent's SQLite state: schema and its migrations, the corrupt-file fallback, one-transaction
// event and cursor writes, queries for `plumb events` and the rules over time.
#include "store/events.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <optional>

#include "core/host_root.h"
#include "core/iso_time.h"

namespace plumb {

namespace {

// Version 1: events, kernel log cursors, cycle results, acknowledgements.
const char* kEventSchemaV1 = R"SQL(
CREATE TABLE events(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  time TEXT NOT NULL,
  boot_id TEXT NOT NULL,
  source TEXT NOT NULL,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  code TEXT NOT NULL,
  evidence TEXT NOT NULL,
  finding TEXT NOT NULL,
  pos INTEGER NOT NULL,
  UNIQUE(boot_id, source, pos));
CREATE INDEX events_time ON events(time);
CREATE TABLE cursors(
  boot_id TEXT NOT NULL,
  source TEXT NOT NULL,
  inode INTEGER NOT NULL,
  offset INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  time TEXT NOT NULL,
  PRIMARY KEY(boot_id, source));
CREATE TABLE results(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  time TEXT NOT NULL,
  boot_id TEXT NOT NULL,
  exit_code INTEGER NOT NULL,
  failures INTEGER NOT NULL,
  warnings INTEGER NOT NULL,
  findings TEXT NOT NULL);
CREATE TABLE acks(
  event_id INTEGER PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
  time TEXT NOT NULL,
  reason TEXT NOT NULL);
)SQL";

// Version 2: error counter readings (kept when they change).
const char* kEventSchemaV2 = R"SQL(
CREATE TABLE samples(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  time TEXT NOT NULL,
  boot_id TEXT NOT NULL,
  counter TEXT NOT NULL,
  subject TEXT NOT NULL,
  value INTEGER NOT NULL,
  source TEXT NOT NULL);
CREATE INDEX samples_key ON samples(boot_id, counter, subject, id);
CREATE INDEX samples_time ON samples(time);
CREATE INDEX results_time ON results(time);
)SQL";

// A prepared statement that finalises itself.
class Query {
 public:
  Query(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Query() { sqlite3_finalize(s_); }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;
  [[nodiscard]] bool ok() const { return rc_ == SQLITE_OK; }
  Query& bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Query& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  int step() { return sqlite3_step(s_); }
  void reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  std::string text(int c) {
    const unsigned char* t = sqlite3_column_text(s_, c);
    return t == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(t));
  }
  std::int64_t i64(int c) { return sqlite3_column_int64(s_, c); }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_ = SQLITE_ERROR;
};

int make_state_dir(const std::string& dir) {
  if (dir.empty()) return 0;
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
  auto slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    int e = make_state_dir(dir.substr(0, slash));
    if (e != 0) return e;
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return errno;
  return 0;
}

bool is_damage(int code) { return code == SQLITE_NOTADB || code == SQLITE_CORRUPT; }

// "2026-12-07T10:56:39Z" -> "20261207T105639Z", for a file name.
std::string compact_stamp(const std::string& iso) {
  std::string s;
  for (char c : iso) {
    if (c != '-' && c != ':') s += c;
  }
  return s;
}

// Opens the file and runs the setup statements; on damage returns SQLite's code and message in
// `damage` (and a null store) so that the caller can move the file aside.
struct Opened {
  sqlite3* db = nullptr;
  int damage = SQLITE_OK;
  std::string message;  // the damage, or why the file could not be opened or checked
  bool failed = false;  // not opened or not checked for another reason (busy, denied)
};

Opened open_checked(const std::string& path) {
  Opened o;
  int rc = sqlite3_open_v2(path.c_str(), &o.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    o.failed = true;
    o.message = o.db != nullptr ? sqlite3_errmsg(o.db) : "out of memory";
    return o;
  }
  sqlite3_busy_timeout(o.db, kEventBusyTimeoutMs);
  // A check of every page's structure (not of every index entry): small for a node's history,
  // and it finds damage that opening alone would only meet in a later query.
  sqlite3_stmt* s = nullptr;
  rc = sqlite3_prepare_v2(o.db, "PRAGMA quick_check", -1, &s, nullptr);
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(s, 0);
      std::string v = t == nullptr ? "" : reinterpret_cast<const char*>(t);
      if (v != "ok") {
        o.damage = SQLITE_CORRUPT;
        o.message = v;
      }
      rc = SQLITE_OK;
    }
  }
  sqlite3_finalize(s);
  int code = sqlite3_errcode(o.db);
  if (o.damage == SQLITE_OK && rc != SQLITE_OK) {
    if (is_damage(code)) o.damage = code;
    else o.failed = true;
    o.message = sqlite3_errmsg(o.db);
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
      o.message = "locked by another process for more than " + std::to_string(kEventBusyTimeoutMs / 1000) + " s (" + o.message + ")";
    }
  }
  return o;
}

// An event of a query whose first columns are id, time, boot_id, source, kind, subject, code,
// evidence, finding.
NodeEvent event_row(Query& q) {
  NodeEvent e;
  e.id = q.i64(0);
  e.time = q.text(1);
  e.boot_id = q.text(2);
  e.source = q.text(3);
  e.kind = q.text(4);
  e.subject = q.text(5);
  e.code = q.text(6);
  e.evidence = q.text(7);
  e.finding = q.text(8);
  return e;
}

// The rows of a query whose columns are time, boot_id, exit_code, failures, warnings, findings,
// id; nothing when a step fails.
std::optional<std::vector<CycleResult>> result_rows(Query& q) {
  std::vector<CycleResult> out;
  int rc = 0;
  while ((rc = q.step()) == SQLITE_ROW) {
    out.push_back({q.text(0), q.text(1), static_cast<int>(q.i64(2)), static_cast<int>(q.i64(3)), static_cast<int>(q.i64(4)), q.text(5), q.i64(6)});
  }
  if (rc != SQLITE_DONE) return std::nullopt;
  return out;
}

}  // namespace

std::string agent_db_path(const std::string& state_dir) {
  std::string d = state_dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d + "/" + kAgentDbName;
}

Error EventStore::sql_error(const std::string& what) const {
  int code = sqlite3_errcode(db_);
  std::string msg = sqlite3_errmsg(db_);
  ErrorKind k = ErrorKind::io;
  if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
    msg = "locked by another process for more than " + std::to_string(kEventBusyTimeoutMs / 1000) + " s (" + msg + ")";
  } else if (code == SQLITE_FULL) {
    msg = "disk full (" + msg + ")";
  } else if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM) {
    k = ErrorKind::denied;
  } else if (is_damage(code)) {
    k = ErrorKind::invalid;
  }
  return make_error(k, "state database " + path_ + ": " + what + ": " + msg);
}

Result<bool> EventStore::exec(const std::string& sql) {
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) return sql_error("query failed");
  return true;
}

void EventStore::rollback() {
  if (sqlite3_get_autocommit(db_) == 0) (void)sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

Result<bool> migrate_event_schema(sqlite3* db, int from) {
  if (from > kEventSchemaVersion) {
    return make_error(ErrorKind::unsupported, "schema version " + std::to_string(from) + " is newer than this plumb's (" +
                                                  std::to_string(kEventSchemaVersion) + ")");
  }
  if (from < 1 && sqlite3_exec(db, kEventSchemaV1, nullptr, nullptr, nullptr) != SQLITE_OK) {
    return make_error(ErrorKind::io, std::string("creating the schema: ") + sqlite3_errmsg(db));
  }
  if (from < 2 && sqlite3_exec(db, kEventSchemaV2, nullptr, nullptr, nullptr) != SQLITE_OK) {
    return make_error(ErrorKind::io, std::string("migrating the schema to version 2: ") + sqlite3_errmsg(db));
  }
  // A later version adds its step here: `if (from < 3) ...`, each inside the caller's transaction.
  std::string set = "PRAGMA user_version = " + std::to_string(kEventSchemaVersion);
  if (sqlite3_exec(db, set.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    return make_error(ErrorKind::io, std::string("writing the schema version: ") + sqlite3_errmsg(db));
  }
  return true;
}

Result<std::unique_ptr<EventStore>> EventStore::open(const std::string& state_dir, EventStoreNotice* notice) {
  if (state_dir.empty()) return make_error(ErrorKind::invalid, "--state-dir: empty path");
  if (int e = make_state_dir(state_dir); e != 0) {
    return make_error(error_kind_from_errno(e), "state directory " + state_dir + ": cannot create it: " + errno_text(e));
  }
  const std::string path = agent_db_path(state_dir);
  Opened o = open_checked(path);
  if (!o.failed && o.damage != SQLITE_OK) {
    sqlite3_close_v2(o.db);
    std::string to = path + ".corrupt-" + compact_stamp(now_iso8601());
    if (std::rename(path.c_str(), to.c_str()) != 0) {
      int e = errno;
      return make_error(error_kind_from_errno(e), "state database " + path + " is corrupt (" + o.message + ") and cannot be moved aside: " + errno_text(e));
    }
    for (const char* side : {"-wal", "-shm"}) {
      struct stat st {};
      if (::stat((path + side).c_str(), &st) == 0) (void)std::rename((path + side).c_str(), (to + side).c_str());
    }
    if (notice != nullptr) *notice = {to, o.message};
    o = open_checked(path);
  }
  std::unique_ptr<EventStore> store(new EventStore(o.db, path));
  if (o.failed) return make_error(ErrorKind::io, "state database " + path + ": cannot open: " + o.message);
  if (o.damage != SQLITE_OK) return make_error(ErrorKind::invalid, "state database " + path + ": still corrupt after a fresh start (" + o.message + ")");
  // Write-ahead log with FULL syncing: every commit is on the disk before the cycle goes on, so a
  // power loss keeps every event a cycle reported (sqlite.org/pragma.html#pragma_synchronous).
  if (auto r = store->exec("PRAGMA journal_mode = WAL"); !r) return r.error();
  if (auto r = store->exec("PRAGMA synchronous = FULL"); !r) return r.error();
  if (auto r = store->exec("PRAGMA foreign_keys = ON"); !r) return r.error();
  // A file at this plumb's version is opened without a write lock, so that `plumb events` reads
  // while an agent writes; a migration takes the lock and looks at the version again under it.
  auto version = store->schema_version();
  if (!version) return version.error();
  if (*version == kEventSchemaVersion) return store;
  if (auto r = store->exec("BEGIN IMMEDIATE"); !r) return r.error();
  auto locked = store->schema_version();
  if (!locked) {
    store->rollback();
    return locked.error();
  }
  if (*locked != kEventSchemaVersion) {
    if (auto m = migrate_event_schema(o.db, *locked); !m) {
      store->rollback();
      return make_error(m.error().kind, "state database " + path + ": " + m.error().message);
    }
  }
  if (auto r = store->exec("COMMIT"); !r) {
    store->rollback();
    return r.error();
  }
  return store;
}

EventStore::~EventStore() { sqlite3_close_v2(db_); }

Result<int> EventStore::schema_version() {
  Query q(db_, "PRAGMA user_version");
  if (!q.ok() || q.step() != SQLITE_ROW) return sql_error("reading the schema version");
  return static_cast<int>(q.i64(0));
}

Result<KmsgCursor> EventStore::cursor(const std::string& boot_id, const std::string& source) {
  Query q(db_, "SELECT inode, offset, seq FROM cursors WHERE boot_id = ?1 AND source = ?2");
  if (!q.ok()) return sql_error("reading the kernel log cursor");
  q.bind(1, boot_id).bind(2, source);
  KmsgCursor c;
  int rc = q.step();
  if (rc == SQLITE_ROW) {
    c.inode = static_cast<std::uint64_t>(q.i64(0));
    c.offset = static_cast<std::uint64_t>(q.i64(1));
    c.seq = static_cast<std::uint64_t>(q.i64(2));
  } else if (rc != SQLITE_DONE) {
    return sql_error("reading the kernel log cursor");
  }
  return c;
}

Result<int> EventStore::add_events(const std::string& boot_id, const std::string& source,
                                   const std::vector<std::pair<std::uint64_t, NodeEvent>>& events, const KmsgCursor& next) {
  if (auto r = exec("BEGIN IMMEDIATE"); !r) return r.error();
  int added = 0;
  auto fail = [&](const std::string& what) {
    Error e = sql_error(what);
    rollback();
    return e;
  };
  {
    Query ins(db_,
              "INSERT OR IGNORE INTO events(time, boot_id, source, kind, subject, code, evidence, finding, pos) "
              "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    if (!ins.ok()) return fail("storing events");
    for (const auto& [pos, e] : events) {
      ins.reset();
      ins.bind(1, e.time).bind(2, boot_id).bind(3, source).bind(4, e.kind).bind(5, e.subject).bind(6, e.code);
      ins.bind(7, e.evidence).bind(8, e.finding).bind(9, static_cast<std::int64_t>(pos));
      if (ins.step() != SQLITE_DONE) return fail("storing events");
      added += sqlite3_changes(db_);
    }
  }
  {
    Query cur(db_,
              "INSERT INTO cursors(boot_id, source, inode, offset, seq, time) VALUES(?1, ?2, ?3, ?4, ?5, ?6) "
              "ON CONFLICT(boot_id, source) DO UPDATE SET inode = excluded.inode, offset = excluded.offset, "
              "seq = excluded.seq, time = excluded.time");
    if (!cur.ok()) return fail("storing the kernel log cursor");
    cur.bind(1, boot_id).bind(2, source).bind(3, static_cast<std::int64_t>(next.inode));
    cur.bind(4, static_cast<std::int64_t>(next.offset)).bind(5, static_cast<std::int64_t>(next.seq)).bind(6, now_iso8601());
    if (cur.step() != SQLITE_DONE) return fail("storing the kernel log cursor");
  }
  if (auto r = exec("COMMIT"); !r) {
    rollback();
    return r.error();
  }
  return added;
}

Result<std::int64_t> EventStore::add_result(const CycleResult& r) {
  Query q(db_, "INSERT INTO results(time, boot_id, exit_code, failures, warnings, findings) VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
  if (!q.ok()) return sql_error("storing the check result");
  q.bind(1, r.time).bind(2, r.boot_id).bind(3, static_cast<std::int64_t>(r.exit_code));
  q.bind(4, static_cast<std::int64_t>(r.failures)).bind(5, static_cast<std::int64_t>(r.warnings)).bind(6, r.findings);
  if (q.step() != SQLITE_DONE) return sql_error("storing the check result");
  return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db_));
}

Result<std::vector<CycleResult>> EventStore::results(int limit) {
  Query q(db_, "SELECT time, boot_id, exit_code, failures, warnings, findings, id FROM results ORDER BY id DESC LIMIT ?1");
  if (!q.ok()) return sql_error("reading results");
  q.bind(1, static_cast<std::int64_t>(limit));
  auto rows = result_rows(q);
  if (!rows) return sql_error("reading results");
  return std::move(*rows);
}

Result<std::vector<NodeEvent>> EventStore::events(const std::string& since, const std::string& kind, int limit) {
  Query q(db_,
          "SELECT e.id, e.time, e.boot_id, e.source, e.kind, e.subject, e.code, e.evidence, e.finding, "
          "EXISTS(SELECT 1 FROM acks a WHERE a.event_id = e.id) FROM events e "
          "WHERE (?1 = '' OR e.time >= ?1) AND (?2 = '' OR e.kind = ?2) ORDER BY e.time DESC, e.id DESC LIMIT ?3");
  if (!q.ok()) return sql_error("reading events");
  q.bind(1, since).bind(2, kind).bind(3, static_cast<std::int64_t>(limit));
  std::vector<NodeEvent> out;
  int rc = 0;
  while ((rc = q.step()) == SQLITE_ROW) {
    NodeEvent e = event_row(q);
    e.acked = q.i64(9) != 0;
    out.push_back(std::move(e));
  }
  if (rc != SQLITE_DONE) return sql_error("reading events");
  return out;
}

Result<std::map<std::string, std::int64_t>> EventStore::event_counts() {
  Query q(db_, "SELECT kind, COUNT(*) FROM events GROUP BY kind");
  if (!q.ok()) return sql_error("counting events");
  std::map<std::string, std::int64_t> out;
  int rc = 0;
  while ((rc = q.step()) == SQLITE_ROW) out[q.text(0)] = q.i64(1);
  if (rc != SQLITE_DONE) return sql_error("counting events");
  return out;
}

Result<bool> EventStore::ack(std::int64_t id, const std::string& time, const std::string& reason) {
  {
    Query q(db_, "SELECT 1 FROM events WHERE id = ?1");
    if (!q.ok()) return sql_error("reading events");
    q.bind(1, id);
    int rc = q.step();
    if (rc == SQLITE_DONE) return false;
    if (rc != SQLITE_ROW) return sql_error("reading events");
  }
  Query ins(db_,
            "INSERT INTO acks(event_id, time, reason) VALUES(?1, ?2, ?3) "
            "ON CONFLICT(event_id) DO UPDATE SET time = excluded.time, reason = excluded.reason");
  if (!ins.ok()) return sql_error("storing the acknowledgement");
  ins.bind(1, id).bind(2, time).bind(3, reason);
  if (ins.step() != SQLITE_DONE) return sql_error("storing the acknowledgement");
  return true;
}

Result<int> EventStore::prune(const std::string& before) {
  if (auto r = exec("BEGIN IMMEDIATE"); !r) return r.error();
  int removed = 0;
  for (const char* sql : {"DELETE FROM events WHERE time < ?1", "DELETE FROM results WHERE time < ?1", "DELETE FROM cursors WHERE time < ?1",
                          "DELETE FROM samples WHERE time < ?1"}) {
    Query q(db_, sql);
    if (!q.ok()) {
      Error e = sql_error("removing old rows");
      rollback();
      return e;
    }
    q.bind(1, before);
    if (q.step() != SQLITE_DONE) {
      Error e = sql_error("removing old rows");
      rollback();
      return e;
    }
    removed += sqlite3_changes(db_);
  }
  if (auto r = exec("COMMIT"); !r) {
    rollback();
    return r.error();
  }
  return removed;
}

Result<int> EventStore::add_samples(const std::string& boot_id, const std::vector<CounterSample>& samples) {
  if (samples.empty()) return 0;
  if (auto r = exec("BEGIN IMMEDIATE"); !r) return r.error();
  auto fail = [&](const std::string& what) {
    Error e = sql_error(what);
    rollback();
    return e;
  };
  int added = 0;
  {
    Query last(db_, "SELECT value FROM samples WHERE boot_id = ?1 AND counter = ?2 AND subject = ?3 ORDER BY id DESC LIMIT 1");
    Query ins(db_, "INSERT INTO samples(time, boot_id, counter, subject, value, source) VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
    if (!last.ok() || !ins.ok()) return fail("storing counter readings");
    for (const auto& c : samples) {
      last.reset();
      last.bind(1, boot_id).bind(2, c.counter).bind(3, c.subject);
      int rc = last.step();
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) return fail("reading counter readings");
      if (rc == SQLITE_ROW && last.i64(0) == c.value) continue;  // unchanged: nothing to keep
      ins.reset();
      ins.bind(1, c.time).bind(2, boot_id).bind(3, c.counter).bind(4, c.subject).bind(5, c.value).bind(6, c.source);
      if (ins.step() != SQLITE_DONE) return fail("storing counter readings");
      ++added;
    }
  }
  if (auto r = exec("COMMIT"); !r) {
    rollback();
    return r.error();
  }
  return added;
}

Result<std::vector<CounterSample>> EventStore::samples(const std::string& boot_id) {
  Query q(db_, "SELECT time, counter, subject, value, source FROM samples WHERE boot_id = ?1 ORDER BY id");
  if (!q.ok()) return sql_error("reading counter readings");
  q.bind(1, boot_id);
  std::vector<CounterSample> out;
  int rc = 0;
  while ((rc = q.step()) == SQLITE_ROW) out.push_back({q.text(0), q.text(1), q.text(2), q.i64(3), q.text(4)});
  if (rc != SQLITE_DONE) return sql_error("reading counter readings");
  return out;
}

Result<std::vector<CycleResult>> EventStore::results_of_boot(const std::string& boot_id) {
  Query q(db_, "SELECT time, boot_id, exit_code, failures, warnings, findings, id FROM results WHERE boot_id = ?1 ORDER BY id");
  if (!q.ok()) return sql_error("reading results");
  q.bind(1, boot_id);
  auto rows = result_rows(q);
  if (!rows) return sql_error("reading results");
  return std::move(*rows);
}

Result<std::vector<CycleResult>> EventStore::results_since(const std::string& since) {
  Query q(db_, "SELECT time, boot_id, exit_code, failures, warnings, findings, id FROM results WHERE time >= ?1 ORDER BY id");
  if (!q.ok()) return sql_error("reading results");
  q.bind(1, since);
  auto rows = result_rows(q);
  if (!rows) return sql_error("reading results");
  return std::move(*rows);
}

Result<std::int64_t> EventStore::used_bytes() {
  std::int64_t v[3] = {0, 0, 0};
  const char* pragmas[3] = {"PRAGMA page_count", "PRAGMA freelist_count", "PRAGMA page_size"};
  for (int i = 0; i < 3; ++i) {
    Query q(db_, pragmas[i]);
    if (!q.ok() || q.step() != SQLITE_ROW) return sql_error("reading the database size");
    v[i] = q.i64(0);
  }
  return (v[0] - v[1]) * v[2];
}

Result<int> EventStore::shrink_to(std::int64_t max_bytes) {
  int removed = 0;
  // Each round removes the oldest tenth of every table's rows; the freed pages are reused, so the
  // file stops growing at about max_bytes.
  for (int round = 0; round < 64; ++round) {
    auto used = used_bytes();
    if (!used) return used.error();
    if (*used <= max_bytes) break;
    if (auto r = exec("BEGIN IMMEDIATE"); !r) return r.error();
    int now = 0;
    for (const char* table : {"events", "results", "samples"}) {
      std::string sql = std::string("DELETE FROM ") + table + " WHERE id <= (SELECT MIN(id) + (MAX(id) - MIN(id)) / 10 FROM " + table + ")";
      if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
        Error e = sql_error("removing the oldest rows");
        rollback();
        return e;
      }
      now += sqlite3_changes(db_);
    }
    if (auto r = exec("COMMIT"); !r) {
      rollback();
      return r.error();
    }
    removed += now;
    if (now == 0) break;  // nothing left to remove: the schema alone is larger than the limit
  }
  return removed;
}

Result<std::vector<std::pair<std::uint64_t, NodeEvent>>> EventStore::events_since(const std::string& since) {
  Query q(db_, "SELECT id, time, boot_id, source, kind, subject, code, evidence, finding, pos FROM events WHERE time >= ?1 ORDER BY id");
  if (!q.ok()) return sql_error("reading events");
  q.bind(1, since);
  std::vector<std::pair<std::uint64_t, NodeEvent>> out;
  int rc = 0;
  while ((rc = q.step()) == SQLITE_ROW) {
    out.emplace_back(static_cast<std::uint64_t>(q.i64(9)), event_row(q));
  }
  if (rc != SQLITE_DONE) return sql_error("reading events");
  return out;
}

}  // namespace plumb
