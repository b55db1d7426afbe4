// Environment of the target process: thread-count variables against the CPUs the process may use,
// and the Environment-block line listing the variables that steer CUDA, NCCL and PyTorch.
#include <algorithm>
#include <cmath>

#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "rules/cpu_budget.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr const char* kHostEnvId = "l3.compute.thread_oversubscription";

// Variables that size a library's worker-thread pool. Each library reads its own, so all count.
const std::vector<std::string>& thread_vars() {
  static const std::vector<std::string> v{"OMP_NUM_THREADS",      "MKL_NUM_THREADS",       "OPENBLAS_NUM_THREADS",
                                          "NUMEXPR_NUM_THREADS",  "NUMEXPR_MAX_THREADS",   "VECLIB_MAXIMUM_THREADS",
                                          "BLIS_NUM_THREADS",     "TF_NUM_INTRAOP_THREADS", "GOTO_NUM_THREADS"};
  return v;
}

// OMP_NUM_THREADS may be a nesting list ("8,2"); the outer level is what starts first.
std::optional<std::uint64_t> thread_count(const std::string& value) {
  auto first = split(value, ',').front();
  auto n = parse_uint(first);
  if (!n || *n == 0) return std::nullopt;
  return n;
}

std::vector<Finding> judge_threads(const Facts& f, const Thresholds& th) {
  const auto& env = f.host.process.environ;
  if (!env.has()) return {skipped(kHostEnvId, env.why())};
  auto budget = cpu_budget(f);
  if (!budget) return {skipped(kHostEnvId, "CPU count unknown: " + f.host.cpu.logical_cpus.why())};
  double warn_ratio = th.get("cpu.thread_oversubscription_warn_ratio");
  double fail_ratio = th.get("cpu.thread_oversubscription_fail_ratio");

  Finding out;
  out.id = kHostEnvId;
  std::string worst_var;
  std::uint64_t worst = 0;
  std::string set_vars;
  for (const auto& var : thread_vars()) {
    auto it = env->find(var);
    if (it == env->end()) continue;
    out.add(var, it->second, env.source);
    set_vars += (set_vars.empty() ? "" : ", ") + var + "=" + it->second;
    auto n = thread_count(it->second);
    if (n && *n > worst) {
      worst = *n;
      worst_var = var;
    }
  }
  out.evidence.push_back(budget->evidence);
  std::string cpus = fmt_num(budget->cpus, budget->cpus == std::floor(budget->cpus) ? 0 : 2);
  out.arg("cpus", cpus);
  out.threshold = "threads <= " + fmt_num(warn_ratio, 1) + " x CPUs (warn), < " + fmt_num(fail_ratio, 1) + " x (fail)";

  if (worst_var.empty()) {
    // Nothing set: OpenMP/BLAS size their pools from the affinity mask, which a CPU quota does not shrink.
    const auto& allowed = f.host.process.cpus_allowed;
    int defaults = allowed.has() ? *allowed : (f.host.cpu.logical_cpus.has() ? *f.host.cpu.logical_cpus : 0);
    if (budget->from_cgroup && defaults > 0 && defaults > budget->cpus * warn_ratio) {
      double ratio = defaults / budget->cpus;
      out.status = ratio >= fail_ratio ? Status::fail : Status::warn;
      out.variant = "default_over";
      out.arg("default", std::to_string(defaults)).arg("ratio", fmt_num(ratio, 1)).arg("var", "OMP_NUM_THREADS");
      out.arg("suggest", std::to_string(std::max(1, static_cast<int>(std::floor(budget->cpus)))));
      out.add("default threads (affinity mask)", std::to_string(defaults),
              allowed.has() ? allowed.source : f.host.cpu.logical_cpus.source);
      return {out};
    }
    out.status = Status::pass;
    out.variant = "unset";
    return {out};
  }
  double ratio = static_cast<double>(worst) / budget->cpus;
  out.arg("var", worst_var).arg("threads", std::to_string(worst)).arg("ratio", fmt_num(ratio, 1)).arg("vars", set_vars);
  out.arg("suggest", std::to_string(std::max(1, static_cast<int>(std::floor(budget->cpus)))));
  if (ratio >= fail_ratio) out.status = Status::fail;
  else if (ratio > warn_ratio) out.status = Status::warn;
  else out.status = Status::pass;
  return {out};
}






}  // namespace
void rules_host_env_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"cpu.thread_oversubscription_warn_ratio", 1.0, "ratio",
     {"warn when a thread-count variable exceeds this multiple of the CPUs the process may use",
      "线程数变量超过进程可用 CPU 的该倍数时警告"}},
    {"cpu.thread_oversubscription_fail_ratio", 2.0, "ratio",
     {"fail when a thread-count variable reaches this multiple of the CPUs the process may use",
      "线程数变量达到进程可用 CPU 的该倍数时判定失败"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{{
    kHostEnvId, Layer::L3, Pillar::compute, Section::framework,
    {"Thread-count variables vs CPUs granted", "线程数环境变量与实际可用 CPU"},
    {
        {"pass", {"thread-count variables fit the {cpus} CPUs available ({vars})",
                  "线程数变量与可用的 {cpus} 个 CPU 匹配（{vars}）"}},
        {"unset", {"no thread-count variable set; libraries size their pools from the {cpus} CPUs available",
                   "未设置线程数变量；各库按可用的 {cpus} 个 CPU 决定线程池大小"}},
        {"fail", {"{var}={threads} asks for {ratio}× the {cpus} CPUs this process may use: worker threads "
                  "oversubscribe the CPUs and stall each other",
                  "{var}={threads}，是本进程可用 CPU（{cpus} 个）的 {ratio} 倍：线程超额订阅，互相抢占 CPU 导致停顿"}},
        {"default_over", {"no thread-count variable set: OpenMP/BLAS default to the {default} CPUs of the affinity "
                          "mask, but the cgroup quota grants only {cpus} ({ratio}× oversubscribed)",
                          "未设置线程数变量：OpenMP/BLAS 默认按亲和性掩码的 {default} 个 CPU 开线程，"
                          "但 cgroup 配额只给 {cpus} 个（超额 {ratio} 倍）"}},
    },
    {"set {var} (and MKL_NUM_THREADS, OPENBLAS_NUM_THREADS) to at most {suggest}, the CPUs the container "
     "grants, divided by the processes per node (torchrun sets OMP_NUM_THREADS=1 per worker by default)",
     "将 {var}（以及 MKL_NUM_THREADS、OPENBLAS_NUM_THREADS）设为不超过 {suggest}，即容器实际分配的 CPU 数"
     "除以每节点进程数（torchrun 默认为每个 worker 设置 OMP_NUM_THREADS=1）"},
    "plumb check --only l3.compute.thread_oversubscription",
    {"CPU-side ops and data loading stop stalling on each other; seen as steadier step times and higher GPU busy",
     "CPU 侧算子与数据加载不再相互抢占，step 时间更稳定，GPU 利用率更高"},
    {"l2.compute.cpu_saturated", "l2.trace.dataloader_share", "l2.compute.gpu_underutilized", "l2.serving.tail_latency",
     "l2.serving.unstable"},
}};
});
  t.add_rule({kHostEnvId, {"collect.process", "collect.cpu", "collect.cgroup"}, judge_threads});
}

}  // namespace plumb
