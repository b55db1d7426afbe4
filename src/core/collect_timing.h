// Where the wall time of one collection run went: each collector's start offset, duration and
// thread (`plumb check --timings`, docs/performance.md).
#pragma once

#include <functional>
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

// Called by collect() once every collector but the slow ones (collector_is_slow) has written its
// facts, while the slow ones still run: `facts` holds everything but their results then.
using WhileSlowRun = std::function<void(const Facts& facts)>;

// collect() that also reports where the time went (`timings` may be null) and calls `while_slow`
// (when set) between the two halves of the collection.
void collect(const Context& ctx, const Selection& sel, Facts& facts, CollectionTimings* timings,
             const WhileSlowRun& while_slow = {});

// What collect() does once it has chosen the collectors: runs `todo` (the slow ones each on a
// thread of its own, first; the others on a few shared threads), each under its deadline, and
// applies their results in the order of `todo` within each half (the others, then the slow ones).
void run_collectors(const std::vector<const CollectorInfo*>& todo, const Context& ctx, Facts& facts,
                    CollectionTimings* timings, const WhileSlowRun& while_slow = {});

// Threads for the quick collectors on a machine where this process may use `cpus` CPUs: one per
// CPU and at least four (a collector that waits on a file or a driver leaves the CPU to the
// others), but beside a slow collector (the framework probe's interpreter, the quick benchmarks)
// one CPU fewer, at least one: the slow one keeps a CPU to itself and ends sooner, and the quick
// ones, tens of milliseconds of work in all, end before it anyway (docs/performance.md). A hung
// collector still holds the others back by at most the pool's spare delay.
std::size_t quick_collector_threads(std::size_t cpus, bool beside_slow);

// Longest first (ties by id): the order of the --timings table.
std::vector<CollectorTiming> by_duration(const CollectionTimings& t);

// {"total_ms": ..., "collectors": [{"id", "status", "start_ms", "duration_ms", "thread"}...]}
json timings_json(const CollectionTimings& t);

}  // namespace plumb
