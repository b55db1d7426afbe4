// `plumb h5 FILE [FILE2]`: HDF5 datasets with dtype, shape, chunking and filter pipeline, the
// checks on them, and with two files the differences in layout and filters. The layouts become
// facts.h5, the l3.data.h5_filters rule judges them, the shared renderers print them. libhdf5 is
// loaded at run time; without it the command says so and exits 2. Each file is read under a
// deadline (--timeout): a damaged file can keep the library busy without end.
#include <chrono>
#include <memory>

#include "engine/h5.h"
#include "analyze/h5_layout.h"
#include "engine/artefact.h"
#include "core/deadline.h"
#include "core/duration.h"
#include "core/registry.h"

namespace plumb {

int run_h5(const H5Options& a) {
  std::chrono::milliseconds limit{};
  auto check = [&] {
    if (a.files.size() > 2) throw UsageError("h5 takes one file, or two to compare");
    auto t = watch::parse_duration(a.timeout);
    if (!t) throw UsageError("--timeout: " + t.error().message);
    limit = *t;
    auto lib = load_hdf5(a.lib);
    if (!lib) throw UsageError("h5 needs libhdf5: " + lib.error().message);
  };
  Report r = run_artefact("h5", a.common, "l3.data.h5_filters", check, [&](Facts& facts) {
    for (const auto& f : a.files) {
      // Abandoned past the deadline: the library keeps its thread until the process ends, which
      // is at once (the command fails).
      auto l = run_with_deadline<Result<H5FileLayout>>([f] { return read_h5_layout(f); }, limit);
      if (!l) {
        throw UsageError(f + ": HDF5 did not finish reading the file's layout within " + watch::format_duration(limit) +
                         " (a damaged file? a larger --timeout gives it longer)");
      }
      if (!*l) throw UsageError(l->error().message);
      facts.h5.files.push_back(std::move(l->value()));
    }
    if (facts.h5.files.size() == 2) facts.h5.differences = compare_h5_layouts(facts.h5.files[0], facts.h5.files[1]);
    facts.h5.collected = true;
  });
  int rc = exit_code_for(r.findings);
  return rc != 0 ? rc : (r.facts.h5.differences.empty() ? 0 : 1);
}


}  // namespace plumb
