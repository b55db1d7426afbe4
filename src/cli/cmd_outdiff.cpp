// `plumb outdiff A B`: two backends' outputs (.npy or .npz) compared element by element with
// numpy.isclose's rule (default atol 1e-8, rtol 1e-5, numpy's defaults) or Polygraphy's
// (--mode polygraphy; default atol 1e-5, rtol 1e-5, Polygraphy's defaults), plus the mean |a-b|
// bar. The comparison becomes facts.outdiff, l2.serving.output_diff judges it; exit 1 when an
// array is outside tolerance, 2 on unreadable input.
#include <cmath>
#include <memory>

#include "analyze/outdiff.h"
#include "cli/artefact_command.h"
#include "core/registry.h"

namespace plumb {

namespace {

struct OutdiffArgs {
  std::string a, b;
  std::string mode = "numpy";
  double atol = std::nan("");
  double rtol = std::nan("");
  bool equal_nan = false;
  ArtefactOptions common;
};

int run_outdiff(const OutdiffArgs& a) {
  OutdiffOptions o;
  auto check = [&] {
    if (a.mode != "numpy" && a.mode != "polygraphy") throw UsageError("--mode is numpy or polygraphy, not '" + a.mode + "'");
    o.mode = a.mode;
    const bool poly = a.mode == "polygraphy";
    o.atol = std::isnan(a.atol) ? (poly ? 1e-5 : 1e-8) : a.atol;
    o.rtol = std::isnan(a.rtol) ? 1e-5 : a.rtol;  // numpy and Polygraphy agree on 1e-5
    if (!std::isfinite(o.atol) || o.atol < 0 || !std::isfinite(o.rtol) || o.rtol < 0) {
      throw UsageError("--atol and --rtol must be finite and not negative");
    }
    o.equal_nan = a.equal_nan;
  };
  Report r = run_artefact("outdiff", a.common, "l2.serving.output_diff", check, [&](Facts& facts) {
    auto d = outdiff_files(a.a, a.b, o);
    if (!d) throw UsageError(d.error().message);
    facts.outdiff = std::move(d.value());
  });
  return exit_code_for(r.findings);
}


}  // namespace
CommandRun outdiff_command(CLI::App& app) {
  auto a = std::make_shared<OutdiffArgs>();
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
