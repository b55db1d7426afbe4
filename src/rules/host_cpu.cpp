// CPU rules: frequency governor not `performance`, automatic NUMA balancing on a multi-node host.
#include <map>

#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr const char* kGovernor = "l3.compute.cpu_governor";
constexpr const char* kNumaBalancing = "l3.compute.numa_balancing";

std::vector<Finding> judge_governor(const Facts& f, const Thresholds&) {
  const auto& g = f.host.cpu.governors;
  if (!g.has()) return {skipped(kGovernor, g.why())};
  std::map<std::string, std::vector<int>> by_gov;
  for (const auto& c : *g) by_gov[c.governor].push_back(c.cpu);
  Finding out;
  out.id = kGovernor;
  out.threshold = "== performance";
  int slow = 0;
  std::string others;
  for (const auto& [gov, cpus] : by_gov) {
    std::string list;
    // Compact evidence: the governor, how many CPUs, and the first few CPU numbers.
    for (std::size_t i = 0; i < cpus.size() && i < 8; ++i) list.append(i ? "," : "").append(std::to_string(cpus[i]));
    if (cpus.size() > 8) list += ",...";
    out.add("scaling_governor", concat(gov, " on ", std::to_string(cpus.size()), " CPUs (cpu ", list, ")"), g.source);
    if (gov != "performance") {
      slow += static_cast<int>(cpus.size());
      others += (others.empty() ? "" : ", ") + gov;
    }
  }
  if (f.host.cpu.scaling_driver.has()) out.add("scaling_driver", *f.host.cpu.scaling_driver, f.host.cpu.scaling_driver.source);
  out.arg("total", std::to_string(g->size())).arg("slow", std::to_string(slow)).arg("governors", others);
  out.status = slow > 0 ? Status::warn : Status::pass;
  return {out};
}

std::vector<Finding> judge_numa_balancing(const Facts& f, const Thresholds&) {
  const auto& nb = f.host.cpu.numa_balancing;
  const auto& nodes = f.host.cpu.numa_nodes;
  if (!nb.has()) return {skipped(kNumaBalancing, nb.why())};
  if (!nodes.has()) return {skipped(kNumaBalancing, nodes.why())};
  // Memory-only nodes (CXL, HBM) have no CPUs; balancing still migrates pages to them, so count all.
  Finding out;
  out.id = kNumaBalancing;
  out.threshold = "== 0 when NUMA nodes > 1";
  out.add("kernel.numa_balancing", std::to_string(*nb), nb.source);
  out.add("NUMA nodes", std::to_string(nodes->size()), nodes.source);
  out.arg("value", std::to_string(*nb)).arg("nodes", std::to_string(nodes->size()));
  if (nodes->size() < 2) {
    out.status = Status::pass;
    out.variant = "single_node";
  } else if (*nb != 0) {
    out.status = Status::info;
  } else {
    out.status = Status::pass;
  }
  return {out};
}



}  // namespace
void rules_host_cpu_tables(Tables& t) {
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {kGovernor, Layer::L3, Pillar::compute, Section::environment,
     {"CPU frequency governor", "CPU 调频策略"},
     {
         {"pass", {"all {total} CPUs use the performance governor", "全部 {total} 个 CPU 使用 performance 调频策略"}},
         {"warn", {"{slow} of {total} CPUs use {governors} instead of performance: the CPUs feeding the GPUs "
                   "clock down between bursts and wake up late",
                   "{total} 个 CPU 中有 {slow} 个使用 {governors} 而非 performance：为 GPU 供数的 CPU 在空闲间隙降频，唤醒滞后"}},
     },
     {"switch every CPU to performance: `cpupower frequency-set -g performance` (package linux-cpupower), "
      "and make it persistent (tuned profile `throughput-performance`, or a systemd unit); "
      "in the BIOS, choose the 'performance' power profile",
      "将所有 CPU 切换为 performance：`cpupower frequency-set -g performance`（linux-cpupower 软件包），"
      "并持久化（tuned 配置 `throughput-performance` 或 systemd 单元）；BIOS 中选择性能（performance）电源策略"},
     "cat /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor | sort | uniq -c",
     {"steadier data loading and kernel launch latency (fewer GPU gaps waiting on the host)",
      "数据加载与内核启动延迟更稳定（GPU 等待主机的空隙减少）"},
     {"l2.trace.dataloader_share", "l2.compute.cpu_saturated", "l2.compute.gpu_underutilized",
      "l2.bench.membw", "l2.bench.noise"}},
    {kNumaBalancing, Layer::L3, Pillar::compute, Section::environment,
     {"Automatic NUMA balancing", "自动 NUMA 均衡"},
     {
         {"pass", {"kernel.numa_balancing={value} on {nodes} NUMA nodes", "kernel.numa_balancing={value}，NUMA 节点 {nodes} 个"}},
         {"single_node", {"single NUMA node: balancing has nothing to migrate", "只有一个 NUMA 节点：无需页面迁移"}},
         {"info", {"kernel.numa_balancing={value} on {nodes} NUMA nodes: the kernel unmaps and migrates pages of "
                   "running processes, adding latency jitter to pinned, NUMA-bound training workers",
                   "kernel.numa_balancing={value}，NUMA 节点 {nodes} 个：内核会解除映射并迁移运行中进程的内存页，"
                   "给已绑核、绑 NUMA 的训练进程带来延迟抖动"}},
     },
     {"when workers are already bound to their GPU's NUMA node (numactl, torchrun --local-ranks-filter, "
      "or the launcher's CPU affinity), turn balancing off: `sysctl -w kernel.numa_balancing=0` and persist it "
      "in /etc/sysctl.d/",
      "若 worker 已绑定到 GPU 所在 NUMA 节点（numactl 或启动器的 CPU 亲和性设置），关闭自动均衡："
      "`sysctl -w kernel.numa_balancing=0`，并写入 /etc/sysctl.d/ 持久化"},
     "sysctl kernel.numa_balancing",
     {"fewer page-migration stalls on the host side of the pipeline", "减少流水线主机侧的页面迁移停顿"},
     {"l2.trace.dataloader_share", "l2.compute.gpu_underutilized", "l2.bench.membw"}},
};
});
  t.add_rule({kGovernor, {"collect.cpu"}, judge_governor});
  t.add_rule({kNumaBalancing, {"collect.cpu", "collect.sysctl"}, judge_numa_balancing});
}

}  // namespace plumb
