// SQLite's C API as the history database calls it, through a table of functions. The Debian build
// opens libsqlite3.so.0 (package libsqlite3-0) at the first use, through the run-time loader
// (vendor/dynlib.h). Linked, it was bound at every start (Debian builds it with BIND_NOW: 1 700
// symbol relocations, 1.06 M of the dynamic loader's instructions), before any command, `plumb
// check --no-history` included, could start its framework probe (docs/packaging.md). The portable
// build links Debian's static archive and fills the table from it (PLUMB_LINKED_SQLITE).
#pragma once

#include <sqlite3.h>

#include <initializer_list>
#include <string>

#include "core/result.h"

namespace plumb {

#define PLUMB_SQLITE_FUNCTIONS(X)                                                                                      \
  X(open_v2) X(close_v2) X(busy_timeout) X(db_config) X(exec) X(free) X(errcode) X(errmsg) X(prepare_v2) X(finalize) \
  X(step) X(bind_text) X(bind_int64) X(bind_double) X(column_text) X(column_int64) X(column_double) X(last_insert_rowid)

struct SqliteApi {
#define PLUMB_SQLITE_MEMBER(name) decltype(&::sqlite3_##name) name = nullptr;  // NOLINT(bugprone-macro-parentheses): a declarator
  PLUMB_SQLITE_FUNCTIONS(PLUMB_SQLITE_MEMBER)
#undef PLUMB_SQLITE_MEMBER
};

// The table, loaded once (the first call; later calls return the same table or the same error).
// Errors: absent (no libsqlite3.so.0: install libsqlite3-0), io (it would not load), unsupported
// (a function missing: an SQLite older than 3.30).
Result<const SqliteApi*> sqlite_api();
// The table from the first of `names` that loads, not cached (tests give a missing name).
Result<SqliteApi> load_sqlite_api(std::initializer_list<std::string> names);

}  // namespace plumb
