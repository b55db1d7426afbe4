// Intel ISA-L's inflate (igzip) as the gzip readers call it (trace files, job logs), through a table
// of functions. Opened at the first gzip read through the run-time loader (vendor/dynlib.h) from
// libisal.so.2 (Debian package libisal2): it inflates profiler traces 3-4 times as fast as zlib,
// streaming with bounded memory (docs/performance-trace.md, "gzip"). Where it is absent or refused,
// the readers use zlib, which every build links. The state (struct inflate_state, 87 KB) is the
// caller's, laid out by the header of libisal-dev; the library's soname (2) promises that layout.
#pragma once

#include <isa-l/igzip_lib.h>

#include <initializer_list>
#include <string>

#include "core/result.h"

namespace plumb {

#define PLUMB_ISAL_FUNCTIONS(X) \
  X(inflate_init) X(inflate_reset) X(inflate) X(gzip_header_init) X(read_gzip_header)

struct IsalApi {
#define PLUMB_ISAL_MEMBER(name) decltype(&::isal_##name) name = nullptr;  // NOLINT(bugprone-macro-parentheses): a declarator
  PLUMB_ISAL_FUNCTIONS(PLUMB_ISAL_MEMBER)
#undef PLUMB_ISAL_MEMBER
};

// The table, loaded once (the first call; later calls return the same table or the same error).
// Errors: absent (no libisal.so.2: install libisal2), io (it would not load), unsupported (a
// function missing).
Result<const IsalApi*> isal_api();
// The table from the first of `names` that loads, not cached (tests give a missing name).
Result<IsalApi> load_isal_api(std::initializer_list<std::string> names);
// What an isal_inflate return code means, in zlib's words where zlib has them ("invalid distance
// too far back"), so an error reads the same whichever library inflated.
std::string isal_inflate_error(int rc);

}  // namespace plumb
