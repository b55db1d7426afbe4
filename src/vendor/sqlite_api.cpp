#include "vendor/sqlite_api.h"

#include "vendor/dynlib.h"

namespace plumb {

Result<SqliteApi> load_sqlite_api(std::initializer_list<std::string> names) {
  SqliteApi api;
#ifdef PLUMB_LINKED_SQLITE
  (void)names;
#define PLUMB_SQLITE_LINKED(fn) api.fn = &::sqlite3_##fn;
  PLUMB_SQLITE_FUNCTIONS(PLUMB_SQLITE_LINKED)
#undef PLUMB_SQLITE_LINKED
#else
  auto lib = dynlib::open_first(names);
  if (!lib) return make_error(lib.error().kind, "SQLite: " + lib.error().message + " (Debian package libsqlite3-0)");
#define PLUMB_SQLITE_SYMBOL(fn)                                                                                    \
  if (dynlib::resolve(*lib, api.fn, {"sqlite3_" #fn}) < 0) {                                                     \
    return make_error(ErrorKind::unsupported, "SQLite: " + lib->name + " has no sqlite3_" #fn " (SQLite 3.30 or newer)"); \
  }
  PLUMB_SQLITE_FUNCTIONS(PLUMB_SQLITE_SYMBOL)
#undef PLUMB_SQLITE_SYMBOL
#endif
  return api;
}

Result<const SqliteApi*> sqlite_api() {
  static const Result<SqliteApi> loaded = load_sqlite_api({"libsqlite3.so.0"});
  if (!loaded) return loaded.error();
  return &loaded.value();
}

}  // namespace plumb
