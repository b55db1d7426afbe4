// The fleet store in PostgreSQL: our own declarations of the libpq calls used (from the libpq
// reference, postgresql.org/docs/15/libpq.html), loaded through vendor/dynlib; one deadline-bound
// query function over libpq's asynchronous interface (libpq-async.html); the schema, the push of
// one node's rows and the queries of the fleet report.
#include "store/fleet_store.h"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <regex>

#include "core/host_root.h"
#include "core/json.h"
#include "core/subprocess.h"
#include "core/text.h"
#include "vendor/dynlib.h"

namespace plumb {

namespace {

// libpq's types (libpq-fe.h): opaque connection and result, Oid an unsigned int, the status enums.
using PGconn = pg_conn;
struct PGresult;
using Oid = unsigned int;
constexpr int kPqConnectionOk = 0;     // CONNECTION_OK
constexpr int kPqCommandOk = 1;        // PGRES_COMMAND_OK
constexpr int kPqTuplesOk = 2;         // PGRES_TUPLES_OK

struct Libpq {
  PGconn* (*connectdb_params)(const char* const*, const char* const*, int) = nullptr;
  int (*status)(const PGconn*) = nullptr;
  char* (*error_message)(const PGconn*) = nullptr;
  void (*finish)(PGconn*) = nullptr;
  int (*send_query)(PGconn*, const char*) = nullptr;
  int (*send_query_params)(PGconn*, const char*, int, const Oid*, const char* const*, const int*, const int*, int) = nullptr;
  int (*socket)(const PGconn*) = nullptr;
  int (*set_nonblocking)(PGconn*, int) = nullptr;
  int (*flush)(PGconn*) = nullptr;
  int (*consume_input)(PGconn*) = nullptr;
  int (*is_busy)(PGconn*) = nullptr;
  PGresult* (*get_result)(PGconn*) = nullptr;
  int (*result_status)(const PGresult*) = nullptr;
  char* (*result_error_message)(const PGresult*) = nullptr;
  int (*ntuples)(const PGresult*) = nullptr;
  int (*nfields)(const PGresult*) = nullptr;
  char* (*get_value)(const PGresult*, int, int) = nullptr;
  void (*clear)(PGresult*) = nullptr;
};

Libpq g_libpq;

Result<bool> load_libpq_symbols() {
  auto lib = dynlib::open("libpq.so.5");
  if (!lib) {
    if (lib.error().kind == ErrorKind::absent) return make_error(ErrorKind::absent, "libpq.so.5 not found: install libpq5");
    return lib.error();
  }
  bool ok = true;
  auto need = [&](auto& f, const char* name) { ok = dynlib::resolve(*lib, f, {name}) >= 0 && ok; };
  need(g_libpq.connectdb_params, "PQconnectdbParams");
  need(g_libpq.status, "PQstatus");
  need(g_libpq.error_message, "PQerrorMessage");
  need(g_libpq.finish, "PQfinish");
  need(g_libpq.send_query, "PQsendQuery");
  need(g_libpq.send_query_params, "PQsendQueryParams");
  need(g_libpq.socket, "PQsocket");
  need(g_libpq.set_nonblocking, "PQsetnonblocking");
  need(g_libpq.flush, "PQflush");
  need(g_libpq.consume_input, "PQconsumeInput");
  need(g_libpq.is_busy, "PQisBusy");
  need(g_libpq.get_result, "PQgetResult");
  need(g_libpq.result_status, "PQresultStatus");
  need(g_libpq.result_error_message, "PQresultErrorMessage");
  need(g_libpq.ntuples, "PQntuples");
  need(g_libpq.nfields, "PQnfields");
  need(g_libpq.get_value, "PQgetvalue");
  need(g_libpq.clear, "PQclear");
  if (!ok) return make_error(ErrorKind::unsupported, lib->name + " lacks a libpq function plumb uses (libpq 10 or newer is needed)");
  return true;
}

std::string pq_line(const char* text) { return text == nullptr ? std::string() : first_line(std::string(trim(text))); }

// Created once per database; the advisory lock keeps agents that start together from racing on
// CREATE TABLE IF NOT EXISTS (postgresql.org/docs/15/explicit-locking.html#ADVISORY-LOCKS).
const char* kFleetSchema = R"SQL(
BEGIN;
SELECT pg_advisory_xact_lock(7081996001);
CREATE TABLE IF NOT EXISTS plumb_results(
  node text NOT NULL, local_id bigint NOT NULL, time timestamptz NOT NULL, boot_id text NOT NULL,
  exit_code int NOT NULL, failures int NOT NULL, warnings int NOT NULL, findings jsonb NOT NULL,
  kernel text, driver text, bench jsonb,
  UNIQUE(node, local_id, time));
CREATE INDEX IF NOT EXISTS plumb_results_time ON plumb_results(time);
CREATE INDEX IF NOT EXISTS plumb_results_node_time ON plumb_results(node, time);
CREATE TABLE IF NOT EXISTS plumb_events(
  node text NOT NULL, time timestamptz NOT NULL, boot_id text NOT NULL, source text NOT NULL, pos bigint NOT NULL,
  kind text NOT NULL, subject text NOT NULL, code text NOT NULL, evidence text NOT NULL, finding text NOT NULL,
  UNIQUE(node, boot_id, source, pos));
CREATE INDEX IF NOT EXISTS plumb_events_time ON plumb_events(time);
CREATE INDEX IF NOT EXISTS plumb_events_node_time ON plumb_events(node, time);
CREATE TABLE IF NOT EXISTS plumb_nodes(node text PRIMARY KEY, time timestamptz NOT NULL, snapshot text NOT NULL);
COMMIT;
)SQL";

// Timestamps go back to the agent in the form it stores them (ISO 8601 UTC, seconds).
const char* kFleetIso = "to_char(%s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')";

std::string iso_col(const std::string& col) {
  std::string s = kFleetIso;
  return s.replace(s.find("%s"), 2, col);
}

// The node's snapshot as the store keeps it: the facts whole, failing and warning findings whole,
// skipped ones as id and status, passing and info ones left out. The fleet's snapshot reader
// (read_node_snapshot) reads exactly that of a snapshot, so the verdicts are the same, and the row
// is about a third of the file (the passing findings' text is most of a healthy node's snapshot).
std::string fleet_snapshot(const std::string& text) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("findings") || !doc["findings"].is_array()) return text;
  try {
    json kept = json::array();
    for (auto& f : doc["findings"]) {
      const std::string status = f.is_object() ? f.value("status", "") : "";
      if (status == "skip") kept.push_back({{"id", f.value("id", "")}, {"status", status}});
      else if (status != "pass" && status != "info") kept.push_back(std::move(f));
    }
    doc["findings"] = std::move(kept);
    return doc.dump();
  } catch (const json::exception&) {
    return text;  // not the document plumb wrote: stored as it is, the reader judges it
  }
}

}  // namespace

struct FleetStore::Rows {
  std::vector<std::vector<std::string>> rows;
};

std::string mask_conninfo(const std::string& conninfo) {
  static const std::regex uri("^(postgres(?:ql)?://[^:@/?#]*:)[^@/?#]*@");
  static const std::regex query("([?&]password=)[^&#]*");
  static const std::regex keyword("(\\bpassword\\s*=\\s*)('(?:[^'\\\\]|\\\\.)*'|[^\\s]*)");
  std::string s = std::regex_replace(conninfo, uri, "$1***@");
  s = std::regex_replace(s, query, "$1***");
  if (s.find("://") == std::string::npos) s = std::regex_replace(s, keyword, "$1***");
  return s;
}

Result<bool> load_libpq() {
  static std::once_flag once;
  static Result<bool> loaded = true;
  std::call_once(once, [] { loaded = load_libpq_symbols(); });
  return loaded;
}

FleetCycle fleet_cycle_of(const Facts& facts) {
  FleetCycle c;
  c.node = facts.meta.hostname;
  if (facts.host.os.kernel.value) c.kernel = *facts.host.os.kernel.value;
  if (facts.gpu.driver_version.value) c.driver = *facts.gpu.driver_version.value;
  json bench = json::object();
  for (const auto& b : facts.bench.results) {
    for (const auto& m : b.metrics) {
      if (m.samples > 0) bench[m.name] = json::array({m.median, m.higher_is_better});
    }
  }
  if (!bench.empty()) c.bench = bench.dump();
  return c;
}

Result<std::unique_ptr<FleetStore>> FleetStore::connect(const std::string& conninfo) {
  if (auto l = load_libpq(); !l) return l.error();
  const std::string name = mask_conninfo(conninfo);
  // Keywords before dbname are defaults the conninfo may override; expand_dbname = 1 reads a URI or
  // keyword/value string given as dbname (libpq-connect.html#LIBPQ-PQCONNECTDBPARAMS).
  const std::string timeout = std::to_string(kFleetStoreConnectTimeoutS);
  // Warnings only: libpq prints the server's notices on stderr ("relation ... already exists").
  const std::string options = "-c statement_timeout=" + std::to_string(kFleetStoreStatementTimeoutMs) + " -c client_min_messages=warning";
  const char* keys[] = {"connect_timeout", "options", "application_name", "dbname", nullptr};
  const char* values[] = {timeout.c_str(), options.c_str(), "plumb", conninfo.c_str(), nullptr};
  PGconn* c = g_libpq.connectdb_params(keys, values, 1);
  if (c == nullptr) return make_error(ErrorKind::io, "fleet store " + name + ": out of memory");
  std::unique_ptr<FleetStore> store(new FleetStore(c, name));
  if (g_libpq.status(c) != kPqConnectionOk) {
    return make_error(ErrorKind::io, "fleet store " + name + ": cannot connect: " + mask_conninfo(pq_line(g_libpq.error_message(c))));
  }
  g_libpq.set_nonblocking(c, 1);
  auto have = store->exec("SELECT to_regclass('plumb_nodes') IS NOT NULL");
  if (!have) return have.error();
  if (have->rows.at(0).at(0) != "t") {
    if (auto s = store->exec(kFleetSchema, {}, true); !s) return s.error();
  }
  return store;
}

FleetStore::~FleetStore() {
  if (conn_ != nullptr) g_libpq.finish(conn_);
}

// One statement (or, `multi`, a parameterless script) under kFleetStoreStatementTimeoutMs: the
// query is sent without blocking and the socket is polled until the answer is complete or the
// time is up, so a server that stops answering cannot hang the caller.
Result<FleetStore::Rows> FleetStore::exec(const std::string& sql, const std::vector<std::string>& params, bool multi) {
  auto fail = [&](const std::string& why) { return make_error(ErrorKind::io, "fleet store " + name_ + ": " + why); };
  std::vector<const char*> p;
  p.reserve(params.size());
  for (const auto& v : params) p.push_back(v.c_str());
  int sent = multi ? g_libpq.send_query(conn_, sql.c_str())
                   : g_libpq.send_query_params(conn_, sql.c_str(), static_cast<int>(p.size()), nullptr, p.data(), nullptr, nullptr, 0);
  if (sent == 0) return fail(pq_line(g_libpq.error_message(conn_)));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kFleetStoreStatementTimeoutMs);
  auto wait = [&](short events) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return false;
    pollfd fd{g_libpq.socket(conn_), events, 0};
    return ::poll(&fd, 1, static_cast<int>(left)) > 0;
  };
  const std::string timed_out = "no answer within " + std::to_string(kFleetStoreStatementTimeoutMs / 1000) + " s";
  for (int f = g_libpq.flush(conn_); f != 0; f = g_libpq.flush(conn_)) {
    if (f < 0) return fail(pq_line(g_libpq.error_message(conn_)));
    if (!wait(POLLOUT | POLLIN)) return fail(timed_out);
    if (g_libpq.consume_input(conn_) == 0) return fail(pq_line(g_libpq.error_message(conn_)));
  }
  Rows out;
  std::string error;
  for (;;) {
    while (g_libpq.is_busy(conn_) != 0) {
      if (!wait(POLLIN)) return fail(timed_out);
      if (g_libpq.consume_input(conn_) == 0) return fail(pq_line(g_libpq.error_message(conn_)));
    }
    PGresult* r = g_libpq.get_result(conn_);
    if (r == nullptr) break;
    int st = g_libpq.result_status(r);
    if (st == kPqTuplesOk) {
      const int n = g_libpq.ntuples(r), m = g_libpq.nfields(r);
      for (int i = 0; i < n; ++i) {
        std::vector<std::string> row;
        row.reserve(static_cast<std::size_t>(m));
        for (int j = 0; j < m; ++j) row.emplace_back(g_libpq.get_value(r, i, j));
        out.rows.push_back(std::move(row));
      }
    } else if (st != kPqCommandOk && error.empty()) {
      error = pq_line(g_libpq.result_error_message(r));
    }
    g_libpq.clear(r);
  }
  if (!error.empty()) return fail(error);
  return out;
}

// INSERT in batches of multi-row VALUES lists ($1..$n), each batch one statement.
Result<bool> FleetStore::insert_rows(const std::string& head, int columns, const std::vector<std::string>& values, const std::string& tail) {
  const std::size_t per_batch = 500 * static_cast<std::size_t>(columns);
  for (std::size_t at = 0; at < values.size(); at += per_batch) {
    std::vector<std::string> batch(values.begin() + static_cast<long>(at), values.begin() + static_cast<long>(std::min(values.size(), at + per_batch)));
    std::string sql = head + " VALUES ";
    for (std::size_t i = 0; i < batch.size(); ++i) {
      sql += (i % static_cast<std::size_t>(columns) == 0) ? (i == 0 ? "(" : "),(") : ",";
      sql += "$" + std::to_string(i + 1);
    }
    sql += ") " + tail;
    if (auto r = exec(sql, batch); !r) return r.error();
  }
  return true;
}

Result<FleetPushed> FleetStore::push(const FleetCycle& cycle, EventStore& local) {
  if (cycle.node.empty()) return make_error(ErrorKind::invalid, "fleet store " + name_ + ": the node has no host name");
  // What the database has of this node: everything from its newest row on may be missing (rows of
  // that same second are sent again and ignored by the UNIQUE keys).
  auto have = exec("SELECT coalesce((SELECT " + iso_col("max(time)") + " FROM plumb_results WHERE node = $1), ''), coalesce((SELECT " +
                       iso_col("max(time)") + " FROM plumb_events WHERE node = $1), '')",
                   {cycle.node});
  if (!have) return have.error();
  auto results = local.results_since(have->rows.at(0).at(0));
  if (!results) return results.error();
  auto events = local.events_since(have->rows.at(0).at(1));
  if (!events) return events.error();
  std::vector<std::string> rv, ev;
  for (const auto& r : *results) {
    const bool now = r.id == cycle.result_id;
    for (std::string v : {cycle.node, std::to_string(r.id), r.time, r.boot_id, std::to_string(r.exit_code), std::to_string(r.failures),
                          std::to_string(r.warnings), r.findings}) {
      rv.push_back(std::move(v));
    }
    // The facts columns are the cycle's own; an older row sent late has only its summary.
    rv.push_back(now ? cycle.kernel : "");
    rv.push_back(now ? cycle.driver : "");
    rv.push_back(now ? cycle.bench : "");
  }
  for (const auto& [pos, e] : *events) {
    for (std::string v : {cycle.node, e.time, e.boot_id, e.source, std::to_string(pos), e.kind, e.subject, e.code, e.evidence, e.finding}) {
      ev.push_back(std::move(v));
    }
  }
  if (auto b = exec("BEGIN"); !b) return b.error();
  auto in_tx = [&]() -> Result<bool> {
    if (auto w = insert_rows("INSERT INTO plumb_results(node, local_id, time, boot_id, exit_code, failures, warnings, findings, kernel, driver, bench) "
                             "SELECT v.node, v.id::bigint, v.time::timestamptz, v.boot, v.rc::int, v.f::int, v.w::int, v.fi::jsonb, "
                             "nullif(v.k, ''), nullif(v.d, ''), nullif(v.b, '')::jsonb FROM (",
                             11, rv, ") AS v(node, id, time, boot, rc, f, w, fi, k, d, b) ON CONFLICT DO NOTHING");
        !w) {
      return w.error();
    }
    if (auto w = insert_rows("INSERT INTO plumb_events(node, time, boot_id, source, pos, kind, subject, code, evidence, finding) "
                             "SELECT v.node, v.time::timestamptz, v.boot, v.src, v.pos::bigint, v.kind, v.sub, v.code, v.ev, v.fi FROM (",
                             10, ev, ") AS v(node, time, boot, src, pos, kind, sub, code, ev, fi) ON CONFLICT DO NOTHING");
        !w) {
      return w.error();
    }
    if (!cycle.snapshot.empty()) {
      auto w = exec("INSERT INTO plumb_nodes(node, time, snapshot) VALUES($1, now(), $2) "
                    "ON CONFLICT(node) DO UPDATE SET time = excluded.time, snapshot = excluded.snapshot",
                    {cycle.node, fleet_snapshot(cycle.snapshot)});
      if (!w) return w.error();
    }
    auto c = exec("COMMIT");
    if (!c) return c.error();
    return true;
  };
  if (auto t = in_tx(); !t) {
    (void)exec("ROLLBACK");
    return make_error(t.error().kind, t.error().message + " (pending: " + std::to_string(results->size()) + " results and " +
                                          std::to_string(events->size()) + " events, kept in " + local.path() + ")");
  }
  return FleetPushed{static_cast<int>(results->size()), static_cast<int>(events->size())};
}

Result<std::vector<std::pair<std::string, std::string>>> FleetStore::latest_snapshots() {
  auto r = exec("SELECT node, snapshot FROM plumb_nodes ORDER BY node");
  if (!r) return r.error();
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(r->rows.size());
  for (auto& row : r->rows) out.emplace_back(std::move(row[0]), std::move(row[1]));
  return out;
}

Result<FleetHistory> FleetStore::history(double repeat_days, double events_days, double regression_days) {
  const std::vector<std::string> p{fmt_num(repeat_days, 3), fmt_num(events_days, 3), fmt_num(regression_days, 3)};
  // One row per node with anything to judge; the windows end now. The regression part compares the
  // first and the last result with benchmarks in the window: a node whose kernel or driver differs
  // between them "changed"; each metric's change is signed so that negative is worse.
  auto r = exec(R"SQL(
WITH f AS (SELECT node, count(*) AS n FROM plumb_results WHERE failures > 0 AND time > now() - $1::float8 * interval '1 day' GROUP BY node),
e AS (SELECT node, count(*) FILTER (WHERE time > now() - $2::float8 * interval '1 day') AS recent,
             count(*) FILTER (WHERE time <= now() - $2::float8 * interval '1 day') AS prior
      FROM plumb_events WHERE time > now() - 2 * $2::float8 * interval '1 day' GROUP BY node),
w AS (SELECT node, time, coalesce(kernel, 'n/a') AS kernel, coalesce(driver, 'n/a') AS driver, bench FROM plumb_results
      WHERE bench IS NOT NULL AND time > now() - $3::float8 * interval '1 day'),
a AS (SELECT DISTINCT ON (node) * FROM w ORDER BY node, time),
b AS (SELECT DISTINCT ON (node) * FROM w ORDER BY node, time DESC),
v AS (SELECT a.node, concat_ws('; ', CASE WHEN a.kernel <> b.kernel THEN 'kernel ' || a.kernel || ' -> ' || b.kernel END,
                                    CASE WHEN a.driver <> b.driver THEN 'driver ' || a.driver || ' -> ' || b.driver END) AS change,
             x.key AS metric, x.value IS NOT NULL AND x.value -> 1 = 'false'::jsonb AS lower_better,
             CASE WHEN jsonb_typeof(x.value -> 0) = 'number' THEN (x.value ->> 0)::float8 END AS v0,
             CASE WHEN jsonb_typeof(b.bench -> x.key -> 0) = 'number' THEN (b.bench -> x.key ->> 0)::float8 END AS v1
      FROM a JOIN b USING (node), jsonb_each(CASE WHEN jsonb_typeof(a.bench) = 'object' THEN a.bench ELSE '{}' END) x
      WHERE a.time < b.time AND jsonb_typeof(b.bench) = 'object'),
m AS (SELECT node, change, metric, 100 * (v1 - v0) / v0 * CASE WHEN lower_better THEN -1 ELSE 1 END AS pct FROM v WHERE v0 > 0 AND v1 IS NOT NULL),
o AS (SELECT metric, percentile_cont(0.5) WITHIN GROUP (ORDER BY pct) AS med, count(*) AS n FROM m WHERE change = '' GROUP BY metric),
c AS (SELECT DISTINCT ON (m.node) m.node, m.change, m.metric, m.pct, coalesce(o.med, 0) AS med, coalesce(o.n, 0) AS n
      FROM m LEFT JOIN o USING (metric) WHERE m.change <> '' ORDER BY m.node, m.pct)
SELECT node, coalesce(f.n, 0), coalesce(e.recent, 0), coalesce(e.prior, 0), coalesce(c.change, ''), coalesce(c.metric, ''),
       coalesce(c.pct, 0), coalesce(c.med, 0), coalesce(c.n, 0)
FROM f FULL JOIN e USING (node) FULL JOIN c USING (node) ORDER BY node
)SQL",
                p);
  if (!r) return r.error();
  FleetHistory h;
  h.collected = true;
  auto num = [](const std::string& s) { return parse_double(s).value_or(0); };
  for (const auto& row : r->rows) {
    FleetHistoryNode n;
    n.host = row[0];
    n.failed = static_cast<int>(num(row[1]));
    n.events_recent = static_cast<int>(num(row[2]));
    n.events_before = static_cast<int>(num(row[3]));
    n.change = row[4];
    n.metric = row[5];
    n.change_percent = num(row[6]);
    n.others_percent = num(row[7]);
    n.others = static_cast<int>(num(row[8]));
    h.nodes.push_back(std::move(n));
  }
  return h;
}

Result<FleetPushed> push_cycle(const std::string& conninfo, const FleetCycle& cycle, EventStore& local) {
  auto store = FleetStore::connect(conninfo);
  if (!store) return make_error(store.error().kind, store.error().message + " (pending: every result and event since the last push, kept in " + local.path() + ")");
  return (*store)->push(cycle, local);
}

}  // namespace plumb
