// `plumb topo`: its command line (the pipeline: engine/topo.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/topo.h"

namespace plumb {

CommandRun topo_command(CLI::App& app) {
  auto a = std::make_shared<TopoOptions>();
  // The topology, the GPUs and the job's NCCL variables (--pid): no kernel log, data or probe.
  add_machine_options(app, a->machine, kPidFlag);
  add_output_options(app, a->output);
  app.add_option("--from-topo-text", a->from_text,
                 "analyse a saved `nvidia-smi topo -m` output instead of this machine");
  app.add_option("--group", a->group, "propose the closest sets of K GPUs");
  app.add_option("--nccl-xml", a->nccl_xml,
                 "write an NCCL topology XML (NCCL_TOPO_FILE) of this machine to FILE");
  return [a] { return run_topo(*a); };
}

}  // namespace plumb
