// History options and the glue between subcommands and the SQLite store.
#include "engine/history.h"

#include <iostream>

#include "engine/output.h"

namespace plumb {

std::string history_path(const HistoryOptions& o) { return o.db.empty() ? default_db_path() : o.db; }

std::unique_ptr<HistoryDb> open_history_or_throw(const HistoryOptions& o, bool create) {
  auto db = HistoryDb::open(history_path(o), create);
  if (!db) throw UsageError(db.error().message);
  return std::move(db.value());
}

void attach_baseline(Facts& facts, HistoryDb* db, const HistoryOptions& o) {
  bool is_file = !o.baseline.empty() && o.baseline.find_first_not_of("0123456789") != std::string::npos;
  if (db == nullptr && !is_file) {
    facts.bench.baseline = Fact<BaselineFacts>::none(o.baseline.empty() ? "history disabled (--no-history)" : "a run id needs the history database");
    return;
  }
  if (db == nullptr) {
    // A file baseline works without a database: load it through a throwaway in-memory store.
    auto mem = HistoryDb::open(":memory:", true);
    if (!mem) {
      facts.bench.baseline = Fact<BaselineFacts>::none(mem.error().message);
      return;
    }
    facts.bench.baseline = load_baseline(**mem, o.baseline);
    return;
  }
  facts.bench.baseline = load_baseline(*db, o.baseline);
}

bool check_records_history(const HistoryOptions& o, const std::string& root) {
  return !o.no_history && (root == "/" || !o.db.empty());  // a fixture tree is not this machine
}

std::unique_ptr<HistoryDb> open_history_for_check(const HistoryOptions& o, const std::string& root) {
  if (!check_records_history(o, root)) return nullptr;
  auto db = HistoryDb::open(history_path(o), true);
  if (!db) {
    std::cerr << "plumb: history not recorded: " << db.error().message << "\n";
    return nullptr;
  }
  return std::move(db.value());
}

bool record_report(HistoryDb* db, const Report& r, bool quiet) {
  if (db == nullptr) return true;
  auto id = db->record(r.facts, r.findings);
  if (!id) {
    std::cerr << "plumb: could not record the run: " << id.error().message << "\n";
    return false;
  }
  if (quiet) return true;
  std::cerr << "plumb: recorded as run " << *id << " in " << db->path() << " (plumb baseline set " << *id << " to make it the baseline)\n";
  return true;
}

}  // namespace plumb
