// Memory rules: memlock limit of the target process (pinned memory, RDMA), swap in use on a training node.
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr const char* kMemlock = "l3.memory.memlock_limit";
constexpr const char* kSwap = "l3.memory.swap_active";

std::string bytes_limit_text(const std::optional<std::uint64_t>& v) { return v ? human_bytes(*v) : "unlimited"; }

std::vector<Finding> judge_memlock(const Facts& f, const Thresholds& th) {
  const auto& m = f.host.process.memlock;
  if (!m.has()) return {skipped(kMemlock, m.why())};
  double min_mib = th.get("process.memlock_min_mib");
  Finding out;
  out.id = kMemlock;
  out.add("Max locked memory (soft)", bytes_limit_text(m->soft), m.source);
  out.add("Max locked memory (hard)", bytes_limit_text(m->hard), m.source);
  out.threshold = ">= " + fmt_num(min_mib, 0) + " MiB (unlimited recommended for RDMA)";
  out.arg("soft", bytes_limit_text(m->soft)).arg("hard", bytes_limit_text(m->hard)).arg("min", fmt_num(min_mib, 0) + " MiB");
  // The soft limit is what registrations hit; a process may raise it only up to the hard limit.
  if (!m->soft) {
    out.status = Status::pass;
    out.variant = "unlimited";
  } else if (static_cast<double>(*m->soft) < min_mib * 1024 * 1024) {
    out.status = Status::warn;
  } else {
    out.status = Status::pass;
  }
  return {out};
}

std::vector<Finding> judge_swap(const Facts& f, const Thresholds& th) {
  const auto& m = f.host.memory;
  if (!m.swap_total_bytes.has()) return {skipped(kSwap, m.swap_total_bytes.why())};
  if (!m.swap_free_bytes.has()) return {skipped(kSwap, m.swap_free_bytes.why())};
  std::uint64_t total = *m.swap_total_bytes;
  std::uint64_t used = total > *m.swap_free_bytes ? total - *m.swap_free_bytes : 0;
  double used_warn_mib = th.get("memory.swap_used_warn_mib");
  Finding out;
  out.id = kSwap;
  out.add("SwapTotal", human_bytes(total), m.swap_total_bytes.source);
  out.add("swap used (SwapTotal - SwapFree)", human_bytes(used), m.swap_free_bytes.source);
  if (m.swaps.has()) {
    for (const auto& d : *m.swaps) {
      out.add("swap device", d.filename + " " + d.type + " " + human_bytes(d.size_bytes) + ", used " + human_bytes(d.used_bytes),
              m.swaps.source);
    }
  }
  std::string swappiness = m.swappiness.has() ? std::to_string(*m.swappiness) : "?";
  if (m.swappiness.has()) out.add("vm.swappiness", swappiness, m.swappiness.source);
  out.threshold = "SwapTotal == 0, or swap used <= " + fmt_num(used_warn_mib, 0) + " MiB";
  out.arg("total", human_bytes(total)).arg("used", human_bytes(used)).arg("swappiness", swappiness);
  if (total == 0) {
    out.status = Status::pass;
  } else if (static_cast<double>(used) > used_warn_mib * 1024 * 1024) {
    out.status = Status::warn;
  } else {
    out.status = Status::info;
    out.variant = "configured";
  }
  return {out};
}




}  // namespace
void rules_host_memory_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"process.memlock_min_mib", 64, "MiB",
     {"warn when the target's locked-memory limit (RLIMIT_MEMLOCK soft) is below this and not unlimited",
      "目标进程锁定内存上限（RLIMIT_MEMLOCK 软限制）低于该值且非 unlimited 时警告"}},
    {"memory.swap_used_warn_mib", 0, "MiB",
     {"warn when more swap than this is in use on the host", "主机已用交换空间超过该值时警告"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {kMemlock, Layer::L3, Pillar::memory, Section::environment,
     {"Locked-memory limit (memlock)", "锁定内存上限（memlock）"},
     {
         {"unlimited", {"memlock is unlimited: pinned buffers and RDMA registrations are not capped",
                        "memlock 为 unlimited：锁页内存与 RDMA 注册不受限制"}},
         {"pass", {"memlock soft limit {soft} (hard {hard}) is at least {min}", "memlock 软限制 {soft}（硬限制 {hard}），不低于 {min}"}},
         {"warn", {"memlock soft limit is only {soft} (hard {hard}): RDMA memory registration (NCCL over "
                   "InfiniBand/RoCE, GPUDirect) fails or falls back to slower paths, and mlock-based pinning stays small",
                   "memlock 软限制仅 {soft}（硬限制 {hard}）：RDMA 内存注册（NCCL 走 InfiniBand/RoCE、GPUDirect）会失败或退回慢速路径，"
                   "基于 mlock 的锁页内存也受限"}},
     },
     {"raise the limit to unlimited: `* - memlock unlimited` in /etc/security/limits.d/, `LimitMEMLOCK=infinity` "
      "in a systemd unit, `docker run --ulimit memlock=-1` or the Kubernetes runtime's default ulimits",
      "将上限提高到 unlimited：/etc/security/limits.d/ 中写入 `* - memlock unlimited`，systemd 单元中设置 "
      "`LimitMEMLOCK=infinity`，容器用 `docker run --ulimit memlock=-1` 或在 Kubernetes 运行时默认 ulimit 中配置"},
     "grep 'Max locked memory' /proc/self/limits  # or: ulimit -l",
     {"NCCL keeps its InfiniBand/RoCE transport instead of failing ibv_reg_mr; pinned host buffers can grow",
      "NCCL 保持 InfiniBand/RoCE 传输而非 ibv_reg_mr 失败；锁页主机缓冲可以按需增长"},
     {"l2.comm.allreduce_slow", "l2.trace.copy_share"}},
    {kSwap, Layer::L3, Pillar::memory, Section::environment,
     {"Swap on a training node", "训练节点的交换分区"},
     {
         {"pass", {"no swap configured", "未配置交换分区"}},
         {"configured", {"{total} of swap configured, none in use (vm.swappiness={swappiness})",
                         "已配置 {total} 交换空间，当前未使用（vm.swappiness={swappiness}）"}},
         {"warn", {"{used} of {total} swap in use (vm.swappiness={swappiness}): pages of the training job or its "
                   "data loaders are being written to disk and fault back in with millisecond stalls",
                   "已使用 {used} / {total} 交换空间（vm.swappiness={swappiness}）：训练进程或数据加载进程的内存页被换出到磁盘，"
                   "再次访问时产生毫秒级停顿"}},
     },
     {"size the job to fit in RAM, then disable swap on training nodes (`swapoff -a` and remove the swap entry "
      "from /etc/fstab), or at least set `vm.swappiness=1` in /etc/sysctl.d/",
      "让任务内存装得下物理内存，然后在训练节点关闭交换分区（`swapoff -a` 并删除 /etc/fstab 中的 swap 条目），"
      "至少在 /etc/sysctl.d/ 中设置 `vm.swappiness=1`"},
     "swapon --show; grep -E 'Swap(Total|Free)' /proc/meminfo",
     {"no page-fault stalls from swap-in during steps", "训练步内不再因换入内存页而停顿"},
     {"l2.memory.pressure", "l2.data.io_pressure", "l2.trace.dataloader_share", "l2.watch.io_bound"}},
};
});
  t.add_rule({kMemlock, {"collect.process"}, judge_memlock});
  t.add_rule({kSwap, {"collect.memory", "collect.sysctl"}, judge_swap});
}

}  // namespace plumb
