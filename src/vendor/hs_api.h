// Vectorscan's (Hyperscan's) C API as the log scan calls it, through a table of functions. The
// Debian build opens libhs.so.5 (package libvectorscan5) at the first log scan, through the
// run-time loader (vendor/dynlib.h): linked, its 8 MB were mapped and its 390 symbol and 2 550
// relative relocations processed at the start of every command, `plumb check` included, which
// never scans a log (docs/packaging.md). The portable build links Debian's static archive and
// fills the table from it (PLUMB_LINKED_HS).
#pragma once

#include <hs.h>

#include <initializer_list>
#include <string>

#include "core/result.h"

namespace plumb {

#define PLUMB_HS_FUNCTIONS(X) \
  X(compile_multi) X(free_compile_error) X(alloc_scratch) X(free_scratch) X(free_database) X(scan)

struct HsApi {
#define PLUMB_HS_MEMBER(name) decltype(&::hs_##name) name = nullptr;  // NOLINT(bugprone-macro-parentheses): a declarator
  PLUMB_HS_FUNCTIONS(PLUMB_HS_MEMBER)
#undef PLUMB_HS_MEMBER
};

// The table, loaded once (the first call; later calls return the same table or the same error).
// Errors: absent (no libhs.so.5: install libvectorscan5), io (it would not load), unsupported (a
// function missing).
Result<const HsApi*> hs_api();
// The table from the first of `names` that loads, not cached (tests give a missing name).
Result<HsApi> load_hs_api(std::initializer_list<std::string> names);

}  // namespace plumb
