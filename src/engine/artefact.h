// The shared part of the subcommands that judge files given on the command line (memory, h5):
// --config/--only/--skip/--save and the output options, then load, judge, save and emit.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/output.h"
#include "core/facts.h"

namespace plumb {

struct ArtefactOptions {
  std::string config;
  std::vector<std::string> only, skip;
  std::string save;
  OutputOptions output;
};


// Runs the command: checks the shared options (UsageError), then `check` (the command's own
// options, before the clock starts; may be empty), then `load` fills the facts of a report of
// `command`; the rules judge them, --save and the output get the report, which is returned.
Report run_artefact(const std::string& command, const ArtefactOptions& o, const std::string& default_only,
                    const std::function<void()>& check, const std::function<void(Facts&)>& load);

}  // namespace plumb
