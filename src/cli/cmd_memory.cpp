// `plumb memory FILE...`: explains torch.cuda.memory_stats() / memory_summary() output and CUDA
// out-of-memory messages (OOMs, retries, fragmentation, pressure) with the advice that fits. The
// files become facts.allocator, the l2.vram.* rules judge them, the shared renderers print them.
#include <chrono>
#include <memory>

#include "analyze/memory_stats.h"
#include "cli/check_options.h"
#include "cli/subcommand.h"
#include "core/registry.h"
#include "core/text.h"

namespace plumb {

namespace {

struct MemoryArgs {
  std::vector<std::string> files;
  std::string gpu_memory;
  std::string config;
  std::vector<std::string> only, skip;
  std::string save;
  OutputOptions output;
};

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

int run_memory(const MemoryArgs& a) {
  Config cfg = load_config_or_throw(a.config);
  RenderOptions ro = check_output(a.output);
  Selection sel = make_selection(a.only.empty() ? std::vector<std::string>{"l2.vram"} : a.only, a.skip, cfg.skip);
  auto start = std::chrono::steady_clock::now();
  Report r = new_report("memory", host_name(HostRoot("/")));
  r.facts.allocator.gpu_memory_bytes = gpu_memory_arg(a.gpu_memory);
  for (const auto& file : a.files) {
    auto text = read_user_file(file, 64u << 20);
    if (!text) throw UsageError("cannot read " + text.error().message);
    auto in = parse_memory_file(*text);
    if (!in) throw UsageError(file + ": " + in.error().message);
    in->file = file;
    r.facts.allocator.files.push_back(std::move(in.value()));
  }
  r.facts.allocator.collected = true;
  r.facts.meta.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.findings = judge(r.facts, cfg.thresholds, sel);
  save_report(r, a.save, ro);
  emit(r, a.output);
  return exit_code_for(r.findings);
}

const bool kMemory = register_subcommand(
    {"memory", "explain torch.cuda.memory_stats()/memory_summary() output and CUDA OOM messages", 45,
     [](CLI::App& app) {
       auto a = std::make_shared<MemoryArgs>();
       app.add_option("file", a->files, "memory_stats() JSON, memory_summary() text or a log with OOM messages")
           ->required();
       app.add_option("--gpu-memory", a->gpu_memory, "GPU capacity (e.g. 80GiB) when no OOM message states it");
       app.add_option("--config", a->config, "TOML file overriding thresholds (vram.*)");
       app.add_option("--only", a->only, "judge only these check ids or prefixes (default l2.vram)");
       app.add_option("--skip", a->skip, "skip these check ids or prefixes");
       app.add_option("--save", a->save, "also save the report as JSON (a snapshot `plumb report` can render)");
       add_output_options(app, a->output);
       return [a] { return run_memory(*a); };
     }});

}  // namespace
}  // namespace plumb
