// `plumb check` and `plumb report`: their command lines (the pipelines: engine/check.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/check.h"

namespace plumb {

CommandRun check_command(CLI::App& app) {
  auto a = std::make_shared<CheckOptions>();
  add_machine_options(app, a->machine);
  add_output_options(app, a->output, report_formats_with_prom());
  app.add_option("--only", a->only, "run only these check ids or prefixes (comma-separated)");
  app.add_option("--skip", a->skip, "skip these check ids or prefixes (comma-separated)");
  app.add_option("--save", a->save, "also save the snapshot (JSON) to FILE");
  app.add_option("--bench", a->bench, "quick|none: run the quick benchmarks too")
      ->check(CLI::IsMember({"quick", "none"}))
      ->capture_default_str();
  app.add_option("--expect-gpus", a->expect_gpus,
                 "fail unless exactly N GPUs are usable (threshold gpu.expected_count)")
      ->check(CLI::Range(0, 4096));
  app.add_flag("--list", a->list, "list every check with its id and description");
  app.add_flag("--print-config", a->print_config, "print the default thresholds as TOML");
  add_timings_option(app, a->timings);
  add_history_options(app, a->history, true);
  add_scheduler_options(app, a->sched);
  return [a] { return run_scheduler_guarded(a->sched, a->output.lang, [a] { return run_check(*a); }); };
}

CommandRun report_command(CLI::App& app) {
  auto a = std::make_shared<ReportOptions>();
  app.add_option("snapshot", a->snapshot, "snapshot JSON written by check --save")->required();
  add_output_options(app, a->output, report_formats_with_prom());
  app.add_option("--config", a->config, "TOML file overriding thresholds");
  app.add_option("--only", a->only, "judge only these check ids or prefixes");
  app.add_option("--skip", a->skip, "skip these check ids or prefixes");
  return [a] { return run_report(*a); };
}

}  // namespace plumb
