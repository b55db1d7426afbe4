// History options shared by `check`, `bench`, `baseline`, `compare` and `history`: --db,
// --no-history, --baseline; opening the database, attaching the baseline, recording a run.
#pragma once

#include <memory>
#include <string>

#include "report/report.h"
#include "store/history.h"

namespace plumb {

struct HistoryOptions {
  std::string db;          // --db PATH (empty: default_db_path())
  bool no_history = false; // --no-history: neither read nor write the database
  std::string baseline;    // --baseline RUN|FILE (empty: the database's baseline)
};

std::string history_path(const HistoryOptions& o);
// Opens the database or throws UsageError with the one-line reason (bench, baseline, compare).
std::unique_ptr<HistoryDb> open_history_or_throw(const HistoryOptions& o, bool create = true);
// Sets facts.bench.baseline from --baseline or the database (db may be null: history disabled).
void attach_baseline(Facts& facts, HistoryDb* db, const HistoryOptions& o);

// For `plumb check`: opens the history unless disabled or the run reads a fixture --root (then
// only with an explicit --db); a broken database is reported on stderr and the check goes on.
std::unique_ptr<HistoryDb> open_history_for_check(const HistoryOptions& o, const std::string& root);
// Whether open_history_for_check tries to open one (it may still fail).
bool check_records_history(const HistoryOptions& o, const std::string& root);
// Records the run when db is not null; unless quiet, prints "recorded as run N" on stderr.
// Returns false (after printing the reason on stderr) when recording failed.
bool record_report(HistoryDb* db, const Report& r, bool quiet = false);

}  // namespace plumb
