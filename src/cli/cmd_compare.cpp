// `plumb compare` and `plumb history`: their command lines (the pipelines: engine/compare.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/compare.h"

namespace plumb {

CommandRun compare_command(CLI::App& app) {
  auto a = std::make_shared<CompareOptions>();
  app.add_option("run", a->run, "run id (default: the latest run with measurements)");
  add_history_options(app, a->history, false);
  app.add_option("--baseline", a->history.baseline, "baseline run id or exported baseline JSON file (default: the recorded baseline)");
  app.add_option("--warn-pct", a->warn_pct, "worse by more than this % warns (default 10, or the config)");
  app.add_option("--fail-pct", a->fail_pct, "worse by more than this % fails (default 25, or the config)");
  app.add_option("--config", a->config, "TOML file overriding thresholds");
  add_output_options(app, a->output);
  return [a] { return run_compare(*a); };
}

CommandRun history_command(CLI::App& app) {
  auto a = std::make_shared<HistoryListOptions>();
  app.add_option("metric", a->metric, "a metric name such as membw.copy.all");
  app.add_option("--limit", a->limit, "most recent runs to show")->capture_default_str();
  add_history_options(app, a->history, false);
  add_output_options(app, a->output);
  return [a] { return run_history(*a); };
}

}  // namespace plumb
