// `plumb diagnose [LOG...|-] [--symptom NAME]`: its command line (the pipeline: engine/diagnose.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/diagnose.h"

namespace plumb {

CommandRun diagnose_command(CLI::App& app) {
  auto a = std::make_shared<DiagnoseOptions>();
  app.add_option("log", a->logs, "job logs (plain or .gz, any size); - reads standard input");
  std::string names;
  for (const auto& n : symptom_names()) names += (names.empty() ? "" : ", ") + n;
  app.add_option("--symptom", a->symptom, "start from a symptom without a log: " + names);
  app.add_option("--snapshot", a->snapshot, "judge the causes on a `plumb check --save` snapshot of the failing node");
  app.add_flag("--patterns", a->patterns, "print the signature patterns, one per line (grep -E -f reads them)");
  add_machine_options(app, a->machine);
  add_output_options(app, a->output);
  return [a] { return run_diagnose_command(*a); };
}

}  // namespace plumb
