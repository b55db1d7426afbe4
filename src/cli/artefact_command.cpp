// The shared part of the subcommands that judge files given on the command line (memory, h5).
#include "cli/artefact_command.h"

#include <chrono>

#include "cli/check_options.h"
#include "core/registry.h"

namespace plumb {

void add_artefact_options(CLI::App& app, ArtefactOptions& o, const std::string& config_help, const std::string& default_only) {
  app.add_option("--config", o.config, config_help);
  app.add_option("--only", o.only, "judge only these check ids or prefixes (default " + default_only + ")");
  app.add_option("--skip", o.skip, "skip these check ids or prefixes");
  app.add_option("--save", o.save, "also save the report as JSON (a snapshot `plumb report` can render)");
  add_output_options(app, o.output);
}

Report run_artefact(const std::string& command, const ArtefactOptions& o, const std::string& default_only,
                    const std::function<void()>& check, const std::function<void(Facts&)>& load) {
  Config cfg = load_config_or_throw(o.config);
  RenderOptions ro = check_output(o.output);
  Selection sel = make_selection(o.only.empty() ? std::vector<std::string>{default_only} : o.only, o.skip, cfg.skip);
  if (check) check();
  auto start = std::chrono::steady_clock::now();
  Report r = new_report(command, host_name(HostRoot("/")));
  load(r.facts);
  r.facts.meta.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.findings = judge(r.facts, cfg.thresholds, sel);
  save_report(r, o.save, ro);
  emit(r, o.output);
  return r;
}

}  // namespace plumb
