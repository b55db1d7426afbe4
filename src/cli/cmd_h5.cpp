// `plumb h5 FILE [FILE2]`: its command line (the pipeline: engine/h5.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/h5.h"

namespace plumb {

CommandRun h5_command(CLI::App& app) {
  auto a = std::make_shared<H5Options>();
  app.add_option("file", a->files, "HDF5 file (two files: compare their layouts)")->required();
  app.add_option("--hdf5-lib", a->lib, "libhdf5 to load (default: PLUMB_HDF5_LIB or the system's libhdf5)");
  app.add_option("--timeout", a->timeout, "deadline for reading each file's layout: 30s, 2m (default 2m)")
      ->capture_default_str();
  add_artefact_options(app, a->common, "TOML file overriding thresholds", "l3.data.h5_filters");
  return [a] { return run_h5(*a); };
}

}  // namespace plumb
