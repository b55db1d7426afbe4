// `plumb baseline set|show|export|import`: its command line (the pipeline: engine/baseline.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/baseline.h"

namespace plumb {

CommandRun baseline_command(CLI::App& app) {
  auto a = std::make_shared<BaselineOptions>();
  app.add_option("action", a->action, "set [RUN] | show | export FILE | import FILE")
      ->required()
      ->check(CLI::IsMember({"set", "show", "export", "import"}));
  app.add_option("arg", a->arg, "RUN for set (default: the latest measured run), FILE for export/import");
  app.add_option("--run", a->run, "export: this run instead of the baseline");
  app.add_flag("--no-set", a->no_set, "import: keep the current baseline");
  app.add_option("--lang", a->lang, "language: en|zh");
  add_history_options(app, a->history, false);
  return [a] { return run_baseline(*a); };
}

}  // namespace plumb
