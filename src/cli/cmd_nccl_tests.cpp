// `plumb nccl-tests LOG...`: its command line (the pipeline: engine/nccl_tests.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/nccl_tests.h"

namespace plumb {

CommandRun nccl_tests_command(CLI::App& app) {
  auto a = std::make_shared<NcclTestsOptions>();
  app.add_option("logs", a->logs, "nccl-tests output files (text or -J JSON)")->required();
  add_machine_options(app, a->machine, 0);  // the topology and the RDMA ports only
  add_output_options(app, a->output);
  app.add_option("--link", a->link, "bottleneck link: nvlink2..nvlink5[xLINKS], pcie3..pcie6[xWIDTH]");
  app.add_option("--topo-text", a->topo_text, "saved `nvidia-smi topo -m` of the machine the log ran on");
  app.add_option("--net-gbps", a->net_gbps, "multi-node runs: network rate per node in Gb/s (sum of the NICs)");
  return [a] { return run_nccl_tests(*a); };
}

}  // namespace plumb
