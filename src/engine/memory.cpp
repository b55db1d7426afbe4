// `plumb memory FILE...`: explains torch.cuda.memory_stats() / memory_summary() output and CUDA
// out-of-memory messages (OOMs, retries, fragmentation, pressure) with the advice that fits. The
// files become facts.allocator, the l2.vram.* rules judge them, the shared renderers print them.
#include <memory>

#include "engine/memory.h"
#include "analyze/memory_stats.h"
#include "engine/artefact.h"
#include "core/registry.h"
#include "core/text.h"

namespace plumb {

namespace {

std::optional<std::uint64_t> gpu_memory_arg(const std::string& arg) {
  if (arg.empty()) return std::nullopt;
  std::string s = arg;
  for (const char* suffix : {"iB", "B"}) {  // accept 80GiB / 80GB / 80G
    if (s.size() > 2 && s.ends_with(suffix)) {
      s.resize(s.size() - std::string(suffix).size());
      break;
    }
  }
  auto v = parse_size(s);
  if (!v || *v == 0) throw UsageError("--gpu-memory " + arg + ": not a size (use e.g. 80GiB)");
  return v;
}

}  // namespace

int run_memory(const MemoryOptions& a) {
  Report r = run_artefact("memory", a.common, "l2.vram", {}, [&](Facts& facts) {
    facts.allocator.gpu_memory_bytes = gpu_memory_arg(a.gpu_memory);
    for (const auto& file : a.files) {
      auto text = read_user_file(file, 64u << 20);
      if (!text) throw UsageError("cannot read " + text.error().message);
      auto in = parse_memory_file(*text);
      if (!in) throw UsageError(file + ": " + in.error().message);
      in->file = file;
      facts.allocator.files.push_back(std::move(in.value()));
    }
    facts.allocator.collected = true;
  });
  return exit_code_for(r.findings);
}


}  // namespace plumb
