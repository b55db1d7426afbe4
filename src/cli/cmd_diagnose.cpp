// `plumb diagnose [LOG...|-] [--symptom NAME]`: reads a failing job's logs, names the L1 symptom,
// and confirms or refutes its candidate causes on this machine (--root, --pid) or on a saved
// snapshot of the failing node (--snapshot).
#include <memory>

#include "apps/diagnose.h"
#include "cli/check_options.h"
#include "cli/subcommand.h"
#include "core/knowledge/log_signatures.h"
#include "core/progress.h"
#include "report/progress_text.h"

namespace plumb {

namespace {

struct DiagnoseArgs {
  std::vector<std::string> logs;
  std::string symptom;
  std::string snapshot;
  MachineOptions machine;
  OutputOptions output;
  bool patterns = false;
};

int run_diagnose_cmd(const DiagnoseArgs& a) {
  if (a.patterns) {  // the table's patterns, one per line: `grep -E -f` reads the same list
    std::string out;
    for (const auto& s : log_signatures()) {
      for (const auto& p : s.patterns) out += p + "\n";
    }
    write_output(out, a.output.out);
    return 0;
  }
  if (a.logs.empty() && a.symptom.empty()) throw UsageError("give a log file (or - for stdin), or --symptom NAME");
  check_output(a.output);  // fails early with the hint; validates --lang
  Config cfg = load_config_or_throw(a.machine.config);
  DiagnoseRequest req;
  req.logs = a.logs;
  req.symptom = a.symptom;
  req.snapshot = a.snapshot;
  req.thresholds = cfg.thresholds;
  if (a.snapshot.empty()) {
    req.ctx = make_context(a.machine);
    req.hostname = host_name(req.ctx.root);
  }
  Result<Report> r = make_error(ErrorKind::internal, "diagnose did not run");
  {
    // Progress on a terminal when reading the logs takes more than two seconds; erased before the report.
    ProgressLine line("plumb diagnose");
    if (line.enabled()) {
      Lang lang = render_options(a.output).lang;
      req.on_log_progress = [&line, lang](const std::string& file, std::uint64_t bytes) {
        line.set(progress_log_read(lang, file, bytes));
      };
    }
    r = run_diagnose(req);
  }
  if (!r) throw UsageError(r.error().message);
  emit(*r, a.output);
  return exit_code_for(r->findings);
}


}  // namespace
CommandRun diagnose_command(CLI::App& app) {
  auto a = std::make_shared<DiagnoseArgs>();
  app.add_option("log", a->logs, "job logs (plain or .gz, any size); - reads standard input");
  std::string names;
  for (const auto& n : symptom_names()) names += (names.empty() ? "" : ", ") + n;
  app.add_option("--symptom", a->symptom, "start from a symptom without a log: " + names);
  app.add_option("--snapshot", a->snapshot, "judge the causes on a `plumb check --save` snapshot of the failing node");
  app.add_flag("--patterns", a->patterns, "print the signature patterns, one per line (grep -E -f reads them)");
  add_machine_options(app, a->machine);
  add_output_options(app, a->output);
  return [a] { return run_diagnose_cmd(*a); };
}

}  // namespace plumb
