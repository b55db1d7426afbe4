// `plumb outdiff A B`: its command line (the pipeline: engine/outdiff.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/outdiff.h"

namespace plumb {

CommandRun outdiff_command(CLI::App& app) {
  auto a = std::make_shared<OutdiffCommandOptions>();
  app.add_option("a", a->a, "outputs under test (.npy or .npz)")->required();
  app.add_option("b", a->b, "reference outputs (.npy or .npz); relative error divides by |b|")->required();
  app.add_option("--mode", a->mode, "numpy: |a-b| <= atol + rtol*|b|; polygraphy: mismatch only when both "
                                    "|a-b| > atol and |a-b|/|b| > rtol")->capture_default_str();
  app.add_option("--atol", a->atol, "absolute tolerance (default 1e-8 numpy, 1e-5 polygraphy)");
  app.add_option("--rtol", a->rtol, "relative tolerance (default 1e-5)");
  app.add_flag("--equal-nan", a->equal_nan, "count NaN in both outputs at the same place as equal");
  add_artefact_options(app, a->common, "TOML file overriding thresholds (serving.outdiff_mean_abs_max)",
                       "l2.serving.output_diff");
  return [a] { return run_outdiff(*a); };
}

}  // namespace plumb
