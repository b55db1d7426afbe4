// `--timings`: where a command's collection time went, as a table on stderr and, in a JSON
// report, under facts.meta.timings (only when asked).
#pragma once

#include <string>
#include <vector>

#include "core/collect_timing.h"
#include "core/i18n.h"

namespace plumb {

namespace trace {
struct TraceFileTiming;
}


// The stderr table: one row per collector that ran (longest first: start offset, duration,
// thread, status), the collection run's total, and the command from its collection to now
// (`command_ms`: collection, rules, report, history).
std::string render_timings(const CollectionTimings& t, double command_ms, Lang lang);

// A JSON report (render_json_text) with facts.meta.timings added; the text unchanged when it is
// not a JSON object with facts.meta.
std::string with_timings(const std::string& json_report, const CollectionTimings& t);

// `plumb trace --timings`: per file, its steps (the cut into parts, each part's read on its
// thread with that thread's CPU time, the merge, the analysis), in milliseconds from the start of
// the command, and the command's end (`command_ms`: reports written).
std::string render_trace_timings(const std::vector<trace::TraceFileTiming>& files, double command_ms, Lang lang);

}  // namespace plumb
