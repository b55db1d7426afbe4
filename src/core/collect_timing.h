// Where the wall time of one collection run went: each collector's start offset, duration and
// thread (`plumb check --timings`, docs/performance.md).
#pragma once

#include <string>
#include <vector>

#include "core/json_fwd.h"
#include "core/registry.h"

namespace plumb {

struct CollectorTiming {
  std::string id;
  std::string status;      // as in meta.collectors: ok | error | timed out
  double start_ms = 0;     // when it began on its thread, from the start of the collection run
  double duration_ms = 0;  // its own run on that thread; the time waited when it missed its deadline
  long thread = 0;         // the thread's Linux id (gettid), as perf and strace -f show it
};

struct CollectionTimings {
  std::vector<CollectorTiming> collectors;  // in start order
  double total_ms = 0;  // the collection run: first start to the last result applied
};

// collect() that also reports where the time went (`timings` may be null).
void collect(const Context& ctx, const Selection& sel, Facts& facts, CollectionTimings* timings);

// What collect() does once it has chosen the collectors: runs `todo`, each on a thread of its own
// under its deadline, and applies their results in the order of `todo`.
void run_collectors(const std::vector<const CollectorInfo*>& todo, const Context& ctx, Facts& facts,
                    CollectionTimings* timings);

// Longest first (ties by id): the order of the --timings table.
std::vector<CollectorTiming> by_duration(const CollectionTimings& t);

// {"total_ms": ..., "collectors": [{"id", "status", "start_ms", "duration_ms", "thread"}...]}
json timings_json(const CollectionTimings& t);

}  // namespace plumb
