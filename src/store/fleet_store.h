// The fleet store: every node's agent results and kernel events in one central PostgreSQL
// database (libpq.so.5 loaded at run time, no link-time dependency), and the queries of
// `plumb fleet report --store`. The database knows what it holds (UNIQUE keys, INSERT ... ON
// CONFLICT DO NOTHING), so an agent that could not push sends the same rows again later, in
// order, without duplicates. Schema and queries: docs/fleet-store.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/facts.h"
#include "core/facts/fleet.h"
#include "core/result.h"
#include "store/events.h"

struct pg_conn;

namespace plumb {

// How long a connection attempt (libpq's connect_timeout, unless the conninfo names one) and each
// statement (server-side statement_timeout and a client-side wait on the socket) may take.
inline constexpr int kFleetStoreConnectTimeoutS = 5;
inline constexpr int kFleetStoreStatementTimeoutMs = 15000;

// The conninfo with its password replaced by "***" (URI user:password@, ?password=, password=).
std::string mask_conninfo(const std::string& conninfo);

// Loads libpq.so.5 once; the error is "libpq.so.5 not found: install libpq5" (or why it cannot load).
Result<bool> load_libpq();

// What one node's cycle hands to the store besides its local rows.
struct FleetCycle {
  std::string node;          // the snapshot's meta.hostname
  std::int64_t result_id = 0;  // the cycle's row in the local results table
  std::string snapshot;      // its snapshot JSON, as `plumb check --save` writes it (stored in the fleet's form)
  std::string kernel, driver;  // empty: unknown
  std::string bench;         // JSON object {"metric": [median, higher_is_better]}, "" without benchmarks
};
// The fleet store columns of a cycle's facts (kernel, driver, bench).
FleetCycle fleet_cycle_of(const Facts& facts);

// How many rows a push sent; duplicates the database already had are counted too.
struct FleetPushed {
  int results = 0, events = 0;
};

class FleetStore {
 public:
  // Connects under the deadlines above and creates the tables when they are missing. Errors are
  // one line and never show the password.
  static Result<std::unique_ptr<FleetStore>> connect(const std::string& conninfo);
  ~FleetStore();
  FleetStore(const FleetStore&) = delete;
  FleetStore& operator=(const FleetStore&) = delete;

  // Sends the local results and events the database does not have yet (everything from its newest
  // row of this node on), and the cycle's snapshot as the node's latest, in one transaction.
  Result<FleetPushed> push(const FleetCycle& cycle, EventStore& local);
  // The newest snapshot of every node, by node name.
  Result<std::vector<std::pair<std::string, std::string>>> latest_snapshots();
  // The history the rules over time judge: failing cycles in the last `repeat_days`, events in the
  // last `events_days` and the same length before, the first and last benchmark of
  // `regression_days` with the kernel and driver each ran on.
  Result<FleetHistory> history(double repeat_days, double events_days, double regression_days);

 private:
  struct Rows;
  FleetStore(pg_conn* c, std::string name) : conn_(c), name_(std::move(name)) {}
  Result<Rows> exec(const std::string& sql, const std::vector<std::string>& params = {}, bool multi = false);
  Result<bool> insert_rows(const std::string& head, int columns, const std::vector<std::string>& values, const std::string& tail);
  pg_conn* conn_;
  std::string name_;  // the masked conninfo, for messages
};

// One agent cycle's push: connects, pushes, disconnects. The error says what stays pending.
Result<FleetPushed> push_cycle(const std::string& conninfo, const FleetCycle& cycle, EventStore& local);

}  // namespace plumb
