// GPU-process collector: NVML's running compute processes, and the state and owner of each pid
// in /proc (a pid that is gone or a zombie still holding memory, another user's job).
#include "collect/gpu_processes.h"

#include <unistd.h>

#include <map>
#include <optional>

#include "core/registry.h"
#include "core/text.h"
#include "vendor/nvml_devices.h"
#include "vendor/nvml_processes.h"
#include "core/tables.h"

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

// "PPid:" of a status; nullopt when absent or not a pid.
std::optional<unsigned> status_ppid(const PidStatus& s) {
  auto it = s.fields.find("PPid");
  auto parent = it == s.fields.end() ? std::nullopt : parse_int(it->second);
  if (!parent || *parent < 0 || *parent > 0x7fffffff) return std::nullopt;
  return static_cast<unsigned>(*parent);
}

// The PPid of `pid` as /proc under `root` shows it.
std::optional<unsigned> ppid_in_proc(const HostRoot& root, unsigned pid) {
  auto st = root.read("/proc/" + std::to_string(pid) + "/status");
  if (!st) return std::nullopt;
  return status_ppid(parse_pid_status(*st));
}

// Whether `pid` (as /proc shows it) is `self` or descends from it, at most eight generations down.
bool descends_from(const HostRoot& root, unsigned pid, unsigned self) {
  for (int depth = 0; depth < 8 && pid > 1; ++depth) {
    if (pid == self) return true;
    auto parent = ppid_in_proc(root, pid);
    if (!parent) return false;
    pid = *parent;
  }
  return false;
}

// NSpid's first field: the pid in the outermost namespace; nullopt when there is one field or none.
std::optional<unsigned> outermost_pid(const PidStatus& s) {
  auto it = s.fields.find("NSpid");
  if (it == s.fields.end()) return std::nullopt;
  auto f = split_ws(it->second);
  if (f.size() < 2) return std::nullopt;
  auto v = parse_int(f.front());
  if (!v || *v <= 0 || *v > 0x7fffffff) return std::nullopt;
  return static_cast<unsigned>(*v);
}

}  // namespace

OwnPids::OwnPids(const HostRoot& root) : root_(root) {
  auto self = root.read("/proc/self/status");
  if (!self) return;
  auto outer = outermost_pid(parse_pid_status(*self));
  if (!outer) return;
  namespaced_ = true;
  outer_.insert(*outer);
  // Each process's status read once: its parent in this namespace and its outermost pid.
  struct Proc {
    unsigned ppid = 0;
    std::optional<unsigned> outer;
  };
  std::map<unsigned, Proc> procs;
  auto pids = root.list("/proc");
  if (!pids) return;
  for (const auto& name : *pids) {
    if (!all_digits(name) || name.size() > 9) continue;
    auto st = root.read("/proc/" + name + "/status");
    if (!st) continue;
    PidStatus s = parse_pid_status(*st);
    Proc p;
    p.ppid = status_ppid(s).value_or(0);
    p.outer = outermost_pid(s);
    procs[static_cast<unsigned>(std::stoul(name))] = p;
  }
  const auto me = static_cast<unsigned>(::getpid());
  for (const auto& [pid, p] : procs) {
    if (!p.outer) continue;
    unsigned up = pid;
    for (int depth = 0; depth < 8 && up > 1; ++depth) {
      if (up == me) {
        outer_.insert(*p.outer);
        break;
      }
      auto it = procs.find(up);
      if (it == procs.end()) break;
      up = it->second.ppid;
    }
  }
}

bool OwnPids::contains(unsigned nvml_pid) const {
  if (namespaced_) return outer_.count(nvml_pid) != 0;
  return descends_from(root_, nvml_pid, static_cast<unsigned>(::getpid()));
}

Result<std::vector<std::string>> other_gpu_users(const HostRoot& root, const OwnPids& own, const NvmlLibrary& lib,
                                                 nvml::Device device) {
  auto procs = nvml_compute_processes(lib, device);
  if (!procs) return procs.error();
  std::vector<std::string> out;
  for (const auto& p : *procs) {
    if (own.contains(p.pid)) continue;
    std::string w = "pid " + std::to_string(p.pid);
    std::vector<std::string> about;
    // Inside a container NVML's pids are the host's: /proc here names another process or none.
    if (!own.namespaced()) {
      if (auto st = root.read("/proc/" + std::to_string(p.pid) + "/status")) {
        PidStatus s = parse_pid_status(*st);
        if (auto n = s.fields.find("Name"); n != s.fields.end() && !n->second.empty()) about.push_back(n->second);
      }
    }
    if (p.used_memory_bytes) about.push_back(human_bytes(*p.used_memory_bytes));
    if (!about.empty()) w += concat(" (", join(about, ", "), ")");
    out.push_back(std::move(w));
  }
  return out;
}

std::string gpu_users_text(std::vector<std::string> users) {
  const std::size_t n = users.size();
  if (users.size() > 4) {
    users.resize(4);
    users.emplace_back("...");
  }
  return concat(std::to_string(n), n == 1 ? " process: " : " processes: ", join(users, "; "));
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


}  // namespace
void collect_gpu_processes_tables(Tables& t) {
  t.add_collector({"collect.gpu_processes",
                                            {"Processes holding GPU memory (NVML against /proc)", "占用显存的进程（NVML 对照 /proc）"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              GpuProcessFacts g = read_gpu_processes(ctx);
                                              return [g](Facts& f) { f.sysconfig.gpu_processes = g; };
                                            }});
}

}  // namespace plumb
