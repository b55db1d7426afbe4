// `plumb memory FILE...`: its command line (the pipeline: engine/memory.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/memory.h"

namespace plumb {

CommandRun memory_command(CLI::App& app) {
  auto a = std::make_shared<MemoryOptions>();
  app.add_option("file", a->files, "memory_stats() JSON, memory_summary() text or a log with OOM messages")
      ->required();
  app.add_option("--gpu-memory", a->gpu_memory, "GPU capacity (e.g. 80GiB) when no OOM message states it");
  add_artefact_options(app, a->common, "TOML file overriding thresholds (vram.*)", "l2.vram");
  return [a] { return run_memory(*a); };
}

}  // namespace plumb
