// `plumb h5 FILE [FILE2]`: HDF5 datasets with dtype, shape, chunking and filter pipeline, the
// checks on them, and with two files the differences in layout and filters. The layouts become
// facts.h5, the l3.data.h5_filters rule judges them, the shared renderers print them. libhdf5 is
// loaded at run time; without it the command says so and exits 2.
#include <chrono>
#include <memory>

#include "analyze/h5_layout.h"
#include "cli/check_options.h"
#include "cli/subcommand.h"
#include "core/registry.h"

namespace plumb {

namespace {

struct H5Args {
  std::vector<std::string> files;
  std::string lib;
  std::string config;
  std::vector<std::string> only, skip;
  std::string save;
  OutputOptions output;
};

int run_h5(const H5Args& a) {
  Config cfg = load_config_or_throw(a.config);
  RenderOptions ro = check_output(a.output);
  Selection sel = make_selection(a.only.empty() ? std::vector<std::string>{"l3.data.h5_filters"} : a.only, a.skip, cfg.skip);
  if (a.files.size() > 2) throw UsageError("h5 takes one file, or two to compare");
  auto lib = load_hdf5(a.lib);
  if (!lib) throw UsageError("h5 needs libhdf5: " + lib.error().message);
  auto start = std::chrono::steady_clock::now();
  Report r = new_report("h5", host_name(HostRoot("/")));
  for (const auto& f : a.files) {
    auto l = read_h5_layout(f);
    if (!l) throw UsageError(l.error().message);
    r.facts.h5.files.push_back(std::move(l.value()));
  }
  if (r.facts.h5.files.size() == 2) r.facts.h5.differences = compare_h5_layouts(r.facts.h5.files[0], r.facts.h5.files[1]);
  r.facts.h5.collected = true;
  r.facts.meta.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.findings = judge(r.facts, cfg.thresholds, sel);
  save_report(r, a.save, ro);
  emit(r, a.output);
  int rc = exit_code_for(r.findings);
  return rc != 0 ? rc : (r.facts.h5.differences.empty() ? 0 : 1);
}

const bool kH5 = register_subcommand(
    {"h5", "HDF5 datasets: dtype, shape, chunking, filter pipeline; compare two files", 66, [](CLI::App& app) {
       auto a = std::make_shared<H5Args>();
       app.add_option("file", a->files, "HDF5 file (two files: compare their layouts)")->required();
       app.add_option("--hdf5-lib", a->lib, "libhdf5 to load (default: PLUMB_HDF5_LIB or the system's libhdf5)");
       app.add_option("--config", a->config, "TOML file overriding thresholds");
       app.add_option("--only", a->only, "judge only these check ids or prefixes (default l3.data.h5_filters)");
       app.add_option("--skip", a->skip, "skip these check ids or prefixes");
       app.add_option("--save", a->save, "also save the report as JSON (a snapshot `plumb report` can render)");
       add_output_options(app, a->output);
       return [a] { return run_h5(*a); };
     }});

}  // namespace
}  // namespace plumb
