// `plumb outdiff A B`: two backends' outputs (.npy or .npz) compared element by element with
// numpy.isclose's rule (default atol 1e-8, rtol 1e-5, numpy's defaults) or Polygraphy's
// (--mode polygraphy; default atol 1e-5, rtol 1e-5, Polygraphy's defaults), plus the mean |a-b|
// bar. The comparison becomes facts.outdiff, l2.serving.output_diff judges it; exit 1 when an
// array is outside tolerance, 2 on unreadable input.
#include <cmath>
#include <memory>

#include "engine/outdiff.h"
#include "analyze/outdiff.h"
#include "engine/artefact.h"
#include "core/registry.h"

namespace plumb {

int run_outdiff(const OutdiffCommandOptions& a) {
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


}  // namespace plumb
