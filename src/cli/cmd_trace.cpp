// `plumb trace FILE|DIR...`: its command line (the pipeline: engine/trace.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/trace.h"

namespace plumb {

CommandRun trace_command(CLI::App& app) {
  auto a = std::make_shared<TraceOptions>();
  app.add_option("trace", a->inputs, "trace files (.json, .json.gz; one per rank) or folders of them")->required();
  add_output_options(app, a->output);
  app.add_option("--config", a->config, "TOML file overriding thresholds (see plumb check --print-config)");
  auto* rank = app.add_option("--rank", a->rank, "analyse only the trace of rank R");
  app.add_option("--steps", a->steps, "only ProfilerStep#N with N in A-B (or one step N)");
  app.add_option("--threads", a->threads,
                 "threads for reading (parts of a large trace, several files at once; default 0: every CPU plumb may use)");
  app.add_option("--save", a->save, "also save the report as JSON (a snapshot `plumb report` can render)");
  app.add_flag("--timings", a->timings,
               "print where each file's time went on stderr (the cut into parts, each part's read and CPU time, "
               "the merge, the analysis)");
  return [a, rank] {
    a->rank_given = rank->count() > 0;
    return run_trace(*a);
  };
}

}  // namespace plumb
