// The shared part of the subcommands that judge files given on the command line (memory, h5).
#include "engine/artefact.h"

#include <chrono>

#include "engine/machine.h"
#include "core/registry.h"

namespace plumb {

Report run_artefact(const std::string& command, const ArtefactOptions& o, const std::string& default_only,
                    const std::function<void()>& check, const std::function<void(Facts&)>& load) {
  Config cfg = load_config_or_throw(o.config);
  RenderOptions ro = check_output(o.output);
  refuse_one_file_twice(o.output.out, o.save, "--save");
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
