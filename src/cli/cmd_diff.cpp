// `plumb diff A.json B.json`: its command line (the pipeline: engine/diff.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/diff.h"

namespace plumb {

CommandRun diff_command(CLI::App& app) {
  auto a = std::make_shared<DiffOptions>();
  app.add_option("a", a->a, "snapshot A (plumb check --save)")->required();
  app.add_option("b", a->b, "snapshot B")->required();
  add_output_options(app, a->output);
  return [a] { return run_diff(*a); };
}

}  // namespace plumb
