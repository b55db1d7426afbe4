// The agent's state: an embedded SQLite database (plumb-agent.db in the state directory) with the
// node's kernel events, the kernel log cursor of each boot, each cycle's check result and the
// operators' acknowledgements. Events and the cursor that passes them are written in one
// transaction, so a cycle killed at any moment leaves either both or neither.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collect/kernel_events.h"
#include "core/facts/node_events.h"
#include "core/result.h"

struct sqlite3;

namespace plumb {

inline constexpr const char* kDefaultStateDir = "/var/lib/plumb";
inline constexpr const char* kAgentDbName = "plumb-agent.db";
// The schema this plumb writes (PRAGMA user_version); older files are migrated on open.
inline constexpr int kEventSchemaVersion = 2;
// How long a writer waits for another process's lock before it gives up with an error.
inline constexpr int kEventBusyTimeoutMs = 3000;

// One cycle's check result as stored.
struct CycleResult {
  std::string time, boot_id;
  int exit_code = 0;
  int failures = 0, warnings = 0;
  std::string findings;  // compact JSON array: [{"id", "subject", "status"}, ...]
  std::int64_t id = 0;   // its row id (read back; add_result returns it)
};

// What open() did besides opening: a corrupt file it moved aside.
struct EventStoreNotice {
  std::string moved_to;  // the corrupt file's new name; empty when nothing was moved
  std::string reason;    // SQLite's description of the damage
};

class EventStore {
 public:
  // Opens DIR/plumb-agent.db, creating the directory and the file, migrating an older schema.
  // A file SQLite reports as corrupt or not a database is renamed to plumb-agent.db.corrupt-<time>
  // (with its -wal and -shm) and a fresh one is created; `notice` says so. A read-only
  // directory, a lock held past kEventBusyTimeoutMs or a newer schema is an error.
  static Result<std::unique_ptr<EventStore>> open(const std::string& state_dir, EventStoreNotice* notice = nullptr);
  ~EventStore();
  EventStore(const EventStore&) = delete;
  EventStore& operator=(const EventStore&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  Result<int> schema_version();

  // Where the last cycle stopped reading `source` during boot `boot_id` (zero: from the start).
  Result<KmsgCursor> cursor(const std::string& boot_id, const std::string& source);
  // Stores the events (INSERT OR IGNORE: a line already stored for this boot, source and position
  // is kept once) and the cursor after them, in one transaction. Returns how many were new.
  Result<int> add_events(const std::string& boot_id, const std::string& source, const std::vector<std::pair<std::uint64_t, NodeEvent>>& events,
                         const KmsgCursor& next);
  Result<std::int64_t> add_result(const CycleResult& r);
  // The newest result first.
  Result<std::vector<CycleResult>> results(int limit = 50);
  // Events newest first; `since` (ISO 8601, empty: all) and `kind` (empty: all) filter.
  Result<std::vector<NodeEvent>> events(const std::string& since = "", const std::string& kind = "", int limit = 100000);
  // How many events of each kind are stored.
  Result<std::map<std::string, std::int64_t>> event_counts();
  // Results and events (with their kernel log position) stored at or after `since` (ISO 8601),
  // oldest first: what the fleet store may not have yet.
  Result<std::vector<CycleResult>> results_since(const std::string& since);
  Result<std::vector<std::pair<std::uint64_t, NodeEvent>>> events_since(const std::string& since);
  // Acknowledges event `id`; false when there is no such event.
  Result<bool> ack(std::int64_t id, const std::string& time, const std::string& reason);
  // Deletes events, their acknowledgements, results and counter readings older than `before`
  // (ISO 8601).
  Result<int> prune(const std::string& before);
  // Stores the readings whose value differs from the last one stored for the same boot, counter
  // and subject (the first of a boot always), in one transaction. Returns how many were kept.
  Result<int> add_samples(const std::string& boot_id, const std::vector<CounterSample>& samples);
  // The stored readings of one boot, oldest first.
  Result<std::vector<CounterSample>> samples(const std::string& boot_id);
  // The results of one boot, oldest first.
  Result<std::vector<CycleResult>> results_of_boot(const std::string& boot_id);
  // The bytes the rows take (pages in use times the page size; freed pages are reused).
  Result<std::int64_t> used_bytes();
  // Removes the oldest events, results and readings until the rows take at most `max_bytes`.
  // Returns how many rows went.
  Result<int> shrink_to(std::int64_t max_bytes);

 private:
  EventStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Result<bool> exec(const std::string& sql);
  void rollback();
  Error sql_error(const std::string& what) const;
  sqlite3* db_;
  std::string path_;
};

// The path of the database in a state directory.
std::string agent_db_path(const std::string& state_dir);

// Brings a database at schema version `from` to kEventSchemaVersion, inside the caller's
// transaction; an error for a version newer than this plumb knows.
Result<bool> migrate_event_schema(sqlite3* db, int from);

}  // namespace plumb
