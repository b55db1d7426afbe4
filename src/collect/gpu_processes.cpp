// GPU-process collector: NVML's running compute processes, and the state and owner of each pid
// in /proc (a pid that is gone or a zombie still holding memory, another user's job).
#include "collect/gpu_processes.h"

#include "core/registry.h"
#include "core/text.h"
#include "vendor/nvml_devices.h"
#include "vendor/nvml_processes.h"

namespace plumb {

std::optional<int> status_real_uid(const PidStatus& s) {
  auto it = s.fields.find("Uid");
  if (it == s.fields.end()) return std::nullopt;
  auto f = split_ws(it->second);
  if (f.empty()) return std::nullopt;
  auto n = parse_int(f.front());
  if (!n || *n < 0 || *n > 0x7fffffff) return std::nullopt;
  return static_cast<int>(*n);
}

bool status_in_child_pid_namespace(const PidStatus& s) {
  auto it = s.fields.find("NSpid");
  return it != s.fields.end() && split_ws(it->second).size() > 1;
}

void apply_pid_status(GpuProcessOwner& p, std::string_view status_text) {
  PidStatus s = parse_pid_status(status_text);
  p.alive = true;
  auto state = s.fields.find("State");
  p.state = state == s.fields.end() ? std::string() : state->second;
  p.uid = status_real_uid(s);
  auto name = s.fields.find("Name");
  p.name = name == s.fields.end() ? std::string() : name->second;
}

namespace {

GpuProcessFacts read_gpu_processes(const Context& ctx) {
  GpuProcessFacts g;
  g.target_pid = ctx.pid;
  if (auto self = ctx.root.read(ctx.proc_dir() + "/status")) {
    PidStatus s = parse_pid_status(*self);
    g.target_uid = status_real_uid(s);
    g.pid_namespace = status_in_child_pid_namespace(s);
  }
  const std::string src = "nvmlDeviceGetComputeRunningProcesses";
  auto lib = NvmlLibrary::open(ctx.nvml_lib);
  if (!lib) {
    g.processes = Fact<std::vector<GpuProcessOwner>>::none(lib.error().message, src);
    return g;
  }
  g.nvml_function = nvml_processes_function((*lib)->api());
  auto list = nvml_devices(**lib);
  if (!list) {
    g.processes = Fact<std::vector<GpuProcessOwner>>::none(list.error().message, src);
    return g;
  }
  std::vector<GpuProcessOwner> out;
  std::string first_error;
  bool any = false;
  for (const auto& d : list->devices) {
    if (d.handle == nullptr) continue;
    auto procs = nvml_compute_processes(**lib, d.handle);
    if (!procs) {
      if (first_error.empty()) first_error = "gpu " + std::to_string(d.index) + ": " + procs.error().message;
      continue;
    }
    any = true;
    for (const auto& p : *procs) {
      GpuProcessOwner o;
      o.gpu = d.index;
      o.gpu_bus_id = d.bus_id;
      o.pid = static_cast<int>(p.pid);
      o.used_memory_bytes = p.used_memory_bytes;
      auto st = ctx.root.read("/proc/" + std::to_string(o.pid) + "/status");
      if (st) apply_pid_status(o, *st);
      else o.missing = st.error().describe();
      out.push_back(std::move(o));
    }
  }
  if ((*lib)->api().shutdown != nullptr) (*lib)->api().shutdown();
  if (!any && !first_error.empty()) {
    g.processes = Fact<std::vector<GpuProcessOwner>>::none(first_error, src);
  } else if (!any && list->devices.empty()) {
    g.processes = Fact<std::vector<GpuProcessOwner>>::none(list->count_error.empty() ? "NVML lists no GPU" : list->count_error, src);
  } else {
    g.processes = Fact<std::vector<GpuProcessOwner>>::of(std::move(out), g.nvml_function.empty() ? src : g.nvml_function);
  }
  return g;
}

const bool kGpuProcessesCollector = register_collector({"collect.gpu_processes",
                                            {"Processes holding GPU memory (NVML against /proc)", "占用显存的进程（NVML 对照 /proc）"}, {"sysconfig"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              GpuProcessFacts g = read_gpu_processes(ctx);
                                              return [g](Facts& f) { f.sysconfig.gpu_processes = g; };
                                            }});

}  // namespace
}  // namespace plumb
