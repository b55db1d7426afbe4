// GPU layer: GPU memory held by processes other than the job. NVML lists every process with a
// context on a GPU; one whose pid is gone or a zombie keeps its memory until the driver reaps
// the context (a leaked or stuck process), another user's job shares the GPU and its memory.
#include <algorithm>

#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr const char* kMemoryForeignProcessesId = "l3.vram.foreign_processes";

std::string mem_text(const GpuProcessOwner& p) { return p.used_memory_bytes ? human_bytes(*p.used_memory_bytes) : "n/a"; }

// Ordered by how much attention each needs.
enum class Kind { target, same_user, unknown, other_user, zombie, gone };

Kind classify(const GpuProcessOwner& p, const GpuProcessFacts& g) {
  if (!p.alive) return p.missing.find("denied") != std::string::npos ? Kind::unknown : Kind::gone;
  if (!p.state.empty() && (p.state[0] == 'Z' || p.state[0] == 'X')) return Kind::zombie;
  if (g.target_pid > 0 && p.pid == g.target_pid) return Kind::target;
  if (!p.uid || !g.target_uid) return Kind::unknown;
  return *p.uid == *g.target_uid ? Kind::same_user : Kind::other_user;
}

std::vector<Finding> judge_foreign(const Facts& f, const Thresholds& /*th*/) {
  const auto& g = f.sysconfig.gpu_processes;
  if (!g.processes.has()) return {skipped(kMemoryForeignProcessesId, g.processes.why())};
  if (g.pid_namespace && std::any_of(g.processes->begin(), g.processes->end(), [](const auto& p) { return !p.alive; })) {
    return {skipped(kMemoryForeignProcessesId, "plumb runs in a child PID namespace (a container): NVML reports the host's pids, which /proc "
                         "here cannot show; run plumb on the host")};
  }
  std::map<unsigned, std::vector<const GpuProcessOwner*>> by_gpu;
  for (const auto& p : *g.processes) by_gpu[p.gpu].push_back(&p);
  std::vector<Finding> out;
  for (const auto& [gpu, procs] : by_gpu) {
    Finding x;
    x.id = kMemoryForeignProcessesId;
    x.subject = "gpu " + std::to_string(gpu) + (procs.front()->gpu_bus_id.empty() ? "" : " (" + procs.front()->gpu_bus_id + ")");
    x.threshold = "no GPU memory held by a gone or zombie process (fail) or another user's process (warn)";
    Kind worst = Kind::target;
    const GpuProcessOwner* worst_p = nullptr;
    std::uint64_t foreign_bytes = 0;
    int foreign = 0;
    for (const auto* p : procs) {
      Kind k = classify(*p, g);
      std::string who = p->alive ? p->name + ", state " + p->state + (p->uid ? ", uid " + std::to_string(*p->uid) : "")
                                 : "no such process (" + p->missing + ")";
      x.add("pid " + std::to_string(p->pid), mem_text(*p) + ": " + who, "/proc/" + std::to_string(p->pid) + "/status");
      if (k != Kind::target) {
        ++foreign;
        foreign_bytes += p->used_memory_bytes.value_or(0);
      }
      if (worst_p == nullptr || static_cast<int>(k) > static_cast<int>(worst)) {
        worst = k;
        worst_p = p;
      }
    }
    x.add("NVML", g.nvml_function.empty() ? "nvmlDeviceGetComputeRunningProcesses" : g.nvml_function, g.processes.source);
    if (foreign == 0) continue;
    x.arg("gpu", std::to_string(gpu)).arg("pid", std::to_string(worst_p->pid)).arg("mem", mem_text(*worst_p));
    x.arg("name", worst_p->name.empty() ? "?" : worst_p->name).arg("count", std::to_string(foreign));
    x.arg("total", human_bytes(foreign_bytes)).arg("uid", worst_p->uid ? std::to_string(*worst_p->uid) : "?");
    x.arg("me", g.target_uid ? std::to_string(*g.target_uid) : "?");
    switch (worst) {
      case Kind::gone: x.status = Status::fail; x.variant = "gone"; break;
      case Kind::zombie: x.status = Status::fail; x.variant = "zombie"; break;
      case Kind::other_user: x.status = Status::warn; x.variant = "other_user"; break;
      case Kind::unknown: x.status = Status::info; x.variant = "unknown"; break;
      default: x.status = Status::info; x.variant = "same_user"; break;
    }
    out.push_back(std::move(x));
  }
  if (out.empty()) {
    Finding ok;
    ok.id = kMemoryForeignProcessesId;
    ok.status = Status::pass;
    ok.add("processes on GPUs", std::to_string(g.processes->size()), g.processes.source);
    ok.arg("count", std::to_string(g.processes->size()));
    return {ok};
  }
  return out;
}



}  // namespace
void rules_memory_foreign_processes_tables(Tables& t) {
  t.add_findings([] {
  return std::vector<CatalogEntry>{{
    kMemoryForeignProcessesId, Layer::L3, Pillar::memory, Section::gpu,
    {"GPU memory held by other or dead processes", "被其他进程或已退出进程占用的显存"},
    {
        {"pass", {"no process other than the job holds GPU memory ({count} listed by NVML)",
                  "除作业本身外没有进程占用显存（NVML 列出 {count} 个）"}},
        {"gone", {"GPU {gpu}: pid {pid} holds {mem} but no longer exists in /proc: a leaked context (a killed job whose "
                  "child still maps the device, or a process in another PID namespace) keeps the memory, so the next job "
                  "hits CUDA out of memory",
                  "GPU {gpu}：pid {pid} 占用 {mem}，但 /proc 中已不存在该进程：泄漏的上下文（被杀作业的子进程仍映射设备，或位于其他 PID "
                  "命名空间的进程）一直占着显存，下一个作业会遇到 CUDA out of memory"}},
        {"zombie", {"GPU {gpu}: pid {pid} ({name}) is a zombie and still holds {mem}: its parent has not reaped it, so the "
                    "driver keeps the context and the memory",
                    "GPU {gpu}：pid {pid}（{name}）是僵尸进程，仍占用 {mem}：父进程未回收，驱动因此保留其上下文与显存"}},
        {"other_user", {"GPU {gpu}: {count} other processes hold {total}; pid {pid} ({name}, uid {uid}, not uid {me}) belongs "
                        "to another user: this job does not get the whole GPU",
                        "GPU {gpu}：另有 {count} 个进程占用 {total}；pid {pid}（{name}，uid {uid}，而非 uid {me}）属于其他用户："
                        "本作业无法独占该 GPU"}},
        {"same_user", {"GPU {gpu}: {count} other processes of the same user hold {total} (pid {pid}, {name}, {mem})",
                       "GPU {gpu}：同一用户的另外 {count} 个进程占用 {total}（pid {pid}，{name}，{mem}）"}},
        {"unknown", {"GPU {gpu}: {count} other processes hold {total}; their owner cannot be read (pid {pid})",
                     "GPU {gpu}：另有 {count} 个进程占用 {total}；无法读取其所有者（pid {pid}）"}},
    },
    {"Stop the process (kill {pid}; for a zombie, end or restart its parent: ps -o ppid= -p {pid}); if NVML still lists "
     "a pid that no longer exists, find what holds /dev/nvidia* (sudo fuser -v /dev/nvidia*) and, with the GPU idle, "
     "reset it (nvidia-smi --gpu-reset -i {gpu}); schedule jobs so that one GPU is not shared "
     "(CUDA_VISIBLE_DEVICES, Slurm --gres, exclusive compute mode)",
     "结束该进程（kill {pid}；僵尸进程需结束或重启其父进程：ps -o ppid= -p {pid}）；若 NVML 仍列出已不存在的 pid，"
     "用 sudo fuser -v /dev/nvidia* 找出占用设备的进程，并在 GPU 空闲时重置（nvidia-smi --gpu-reset -i {gpu}）；"
     "调度时避免多个作业共用一块 GPU（CUDA_VISIBLE_DEVICES、Slurm --gres、独占计算模式）"},
    "nvidia-smi --query-compute-apps=gpu_bus_id,pid,process_name,used_memory --format=csv",
    {"the job gets the whole GPU memory back; no out-of-memory from memory someone else holds",
     "作业重新获得全部显存；不再因他人占用而显存不足"},
    {"l2.vram.oom", "l2.vram.pressure"},
}};
});
  t.add_rule({kMemoryForeignProcessesId, {"collect.gpu_processes"}, judge_foreign});
}

}  // namespace plumb
