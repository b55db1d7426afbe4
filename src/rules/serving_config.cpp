// Serving configuration rules (L3): the thread pools a model server starts (ONNX Runtime intra/inter
// pools per session × instances, PyTorch's pool, OpenMP/MKL) against the CPUs the cgroup quota or
// cpuset grants, and each Triton model's config.pbtxt (instance groups, dynamic batching, ONNX
// Runtime thread parameters, `optimization { graph { level: 2 } }` = all optimisations off in
// Triton's ONNX Runtime backend, TensorRT accelerator flags). The single thread-count variable
// against the CPUs is l3.compute.thread_oversubscription (rules/host_env.cpp); this rule adds up
// the pools of a server and shares its thresholds.
#include <algorithm>
#include <cmath>

#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "rules/cpu_budget.h"
#include "core/tables.h"

namespace plumb {
namespace {

constexpr const char* kDemand = "l3.serving.thread_demand";
constexpr const char* kTriton = "l3.serving.triton_config";

bool is_ort(const TritonModel& m) { return m.backend == "onnxruntime" || m.platform == "onnxruntime_onnx"; }
bool is_torch(const TritonModel& m) { return m.backend == "pytorch" || m.platform == "pytorch_libtorch"; }

long long param_int(const TritonModel& m, const char* key) {
  auto it = m.parameters.find(key);
  if (it == m.parameters.end()) return 0;
  auto n = parse_uint(std::string(trim(it->second)));
  return n && *n < 100000 ? static_cast<long long>(*n) : 0;
}

// "--intra_op_num_threads=4", "--intra-op-num-threads 4", "intra_op_thread_count=4" (inside
// --backend-config=onnxruntime,...): the last number given for `what` (intra or inter).
std::optional<long long> cmdline_threads(const std::vector<std::string>& args, const std::string& what) {
  std::optional<long long> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::replace(a.begin(), a.end(), '-', '_');
    for (const std::string& key : {what + "_op_num_threads", what + "_op_thread_count"}) {
      auto at = a.rfind(key);
      if (at == std::string::npos) continue;
      std::string rest = a.substr(at + key.size());
      std::string num;
      if (rest.starts_with("=")) num = rest.substr(1, rest.find(',') == std::string::npos ? std::string::npos : rest.find(',') - 1);
      else if (rest.empty() && i + 1 < args.size()) num = args[i + 1];
      if (auto n = parse_uint(num); n && *n < 100000) out = static_cast<long long>(*n);
    }
  }
  return out;
}

bool global_threadpool(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a.find("enable-global-threadpool=1") != std::string::npos; });
}

int host_cores(const Facts& f) {
  if (f.host.cpu.physical_cores.has() && *f.host.cpu.physical_cores > 0) return *f.host.cpu.physical_cores;
  if (f.host.cpu.logical_cpus.has() && *f.host.cpu.logical_cpus > 0) return *f.host.cpu.logical_cpus;
  return 0;
}

struct Pools {
  long long threads = 0;
  std::vector<std::string> parts;  // "resnet: 2 instances x (intra 32 default) = 64"
  bool ort_default = false;        // some ORT pool was left at its default size
};

Pools count_pools(const Facts& f, int cores) {
  Pools p;
  const auto* args = f.serving_config.cmdline.has() ? &*f.serving_config.cmdline : nullptr;
  const std::vector<std::string> none;
  const auto& a = args != nullptr ? *args : none;
  const bool global = global_threadpool(a);
  auto cmd_intra = cmdline_threads(a, "intra");
  auto cmd_inter = cmdline_threads(a, "inter");
  bool any_ort = false;
  long long torch_pool = 0;
  if (f.serving_config.triton_models.has()) {
    for (const auto& m : *f.serving_config.triton_models) {
      if (!m.error.empty()) continue;
      if (is_ort(m) && !global) {
        any_ort = true;
        long long intra = param_int(m, "intra_op_thread_count");
        bool dflt = intra == 0;
        if (dflt) intra = cores;
        long long inter = 0;
        auto mode = m.parameters.find("execution_mode");
        if (mode != m.parameters.end() && trim(mode->second) == "1") {
          inter = param_int(m, "inter_op_thread_count");
          if (inter == 0) inter = cores;
        }
        p.ort_default |= dflt;
        long long n = m.instances * (intra + inter);
        p.threads += n;
        p.parts.push_back(m.name + ": " + std::to_string(m.instances) + " x (intra " + std::to_string(intra) + (dflt ? " default" : "") +
                          (inter > 0 ? ", inter " + std::to_string(inter) : "") + ") = " + std::to_string(n));
      } else if (is_ort(m)) {
        any_ort = true;
      } else if (is_torch(m)) {
        long long intra = param_int(m, "INTRA_OP_THREAD_COUNT");
        torch_pool = std::max(torch_pool, intra > 0 ? intra : static_cast<long long>(cores));
      }
    }
  }
  if (global || (!any_ort && cmd_intra)) {
    // One pool for the process: Triton's global thread pool, or a server started with ORT options.
    long long intra = cmd_intra.value_or(0);
    bool dflt = intra == 0;
    if (dflt) intra = cores;
    long long inter = cmd_inter.value_or(0);
    p.ort_default |= dflt;
    p.threads += intra + inter;
    p.parts.push_back(std::string(global ? "ONNX Runtime global pool" : "ONNX Runtime (command line)") + ": intra " + std::to_string(intra) +
                      (dflt ? " default" : "") + (inter > 0 ? ", inter " + std::to_string(inter) : "") + " = " + std::to_string(intra + inter));
  }
  if (torch_pool > 0) {
    p.threads += torch_pool;
    p.parts.push_back("PyTorch backend: intra " + std::to_string(torch_pool));
  }
  if (f.host.process.environ.has()) {
    long long omp = 0;
    std::string which;
    for (const char* var : {"OMP_NUM_THREADS", "MKL_NUM_THREADS"}) {
      auto it = f.host.process.environ->find(var);
      if (it == f.host.process.environ->end()) continue;
      auto n = parse_uint(split(it->second, ',').front());
      if (n && static_cast<long long>(*n) > omp && *n < 100000) {
        omp = static_cast<long long>(*n);
        which = std::string(var) + "=" + it->second;
      }
    }
    if (omp > 0 && !p.parts.empty()) {
      p.threads += omp;
      p.parts.push_back("OpenMP/MKL pool: " + which);
    }
  }
  return p;
}

std::vector<Finding> judge_demand(const Facts& f, const Thresholds& th) {
  const auto& sc = f.serving_config;
  if (!sc.collected) return {};  // a snapshot from before the serving collector: nothing to say
  auto budget = cpu_budget(f);
  if (!budget) return {skipped(kDemand, "CPU count unknown: " + f.host.cpu.logical_cpus.why())};
  int cores = host_cores(f);
  Pools pools = count_pools(f, cores);
  if (pools.parts.empty()) {
    // Not a model server as far as plumb can tell (no --model-repo with ONNX Runtime or PyTorch
    // models, no ONNX Runtime thread options on the command line): nothing to report, as for the
    // other opt-in inputs; single variables are l3.compute.thread_oversubscription's.
    if (!sc.triton_models.has()) return {};
    return {skipped(kDemand, "no ONNX Runtime or PyTorch model in " + sc.triton_models.source + " and no ONNX Runtime thread options on the command line")};
  }
  double warn_ratio = th.get("cpu.thread_oversubscription_warn_ratio");
  double fail_ratio = th.get("cpu.thread_oversubscription_fail_ratio");
  Finding out;
  out.id = kDemand;
  std::string src = sc.triton_models.has() ? sc.triton_models.source : sc.cmdline.source;
  for (const auto& part : pools.parts) out.add("pool", part, src);
  out.evidence.push_back(budget->evidence);
  if (cores > 0) out.add("ONNX Runtime default intra-op threads (physical cores of the host)", std::to_string(cores), f.host.cpu.physical_cores.source);
  if (f.host.process.threads.has()) out.add("threads of the process now", std::to_string(*f.host.process.threads), f.host.process.threads.source);
  double ratio = static_cast<double>(pools.threads) / budget->cpus;
  std::string cpus = fmt_num(budget->cpus, budget->cpus == std::floor(budget->cpus) ? 0 : 2);
  out.arg("threads", std::to_string(pools.threads)).arg("cpus", cpus).arg("ratio", fmt_num(ratio, 1));
  out.arg("suggest", std::to_string(std::max(1, static_cast<int>(std::floor(budget->cpus)))));
  out.threshold = "pool threads <= " + fmt_num(warn_ratio, 1) + " x CPUs (warn), < " + fmt_num(fail_ratio, 1) + " x (fail)";
  bool quota = budget->from_cgroup && f.host.cgroup.cpu_quota_cpus.has();
  if (ratio >= fail_ratio) {
    out.status = Status::fail;
    out.variant = quota ? "over_quota" : "over";
  } else if (ratio > warn_ratio) {
    out.status = Status::warn;
    out.variant = quota ? "over_quota" : "over";
  } else {
    out.status = Status::pass;
  }
  return {out};
}

std::vector<Finding> judge_triton(const Facts& f, const Thresholds&) {
  const auto& tm = f.serving_config.triton_models;
  if (!f.serving_config.collected) return {};
  if (!tm.has()) {
    // No --model-repo: an opt-in input, like the files of `plumb h5`; a repository that could not
    // be read is a skip with the reason.
    if (tm.source.empty()) return {};
    return {skipped(kTriton, tm.why())};
  }
  if (tm->empty()) return {skipped(kTriton, "no model directories in " + tm.source)};
  auto budget = cpu_budget(f);
  int cores = host_cores(f);
  std::vector<Finding> out;
  for (const auto& m : *tm) {
    Finding x;
    x.id = kTriton;
    x.subject = m.name;
    x.arg("model", m.name).arg("config", m.config);
    x.threshold = "graph level not 2; ONNX Runtime intra_op_thread_count set within the CPUs granted; dynamic batching when batching";
    if (!m.error.empty()) {
      x.status = m.error.starts_with("no config.pbtxt") ? Status::info : Status::warn;
      x.variant = m.error.starts_with("no config.pbtxt") ? "no_config" : "unreadable";
      x.arg("error", m.error);
      x.add("config.pbtxt", m.error, m.config);
      out.push_back(std::move(x));
      continue;
    }
    std::string groups;
    for (const auto& g : m.instance_groups) groups += (groups.empty() ? "" : ", ") + g;
    x.add("platform / backend", (m.platform.empty() ? "-" : m.platform) + " / " + (m.backend.empty() ? "-" : m.backend), m.config);
    x.add("instance_group", groups.empty() ? "default (1 instance)" : groups, m.config);
    x.add("max_batch_size", std::to_string(m.max_batch_size), m.config);
    x.add("dynamic_batching", m.dynamic_batching ? "on" + (m.max_queue_delay_us.empty() ? std::string() : ", max_queue_delay_microseconds " + m.max_queue_delay_us) : "off", m.config);
    for (const auto& [k, v] : m.parameters) x.add("parameters." + k, v, m.config);
    if (m.has_graph_level) x.add("optimization.graph.level", std::to_string(m.graph_level), m.config);
    for (const auto& [k, v] : m.accelerators) x.add("execution accelerator " + k, v.empty() ? "(no parameters)" : v, m.config);
    long long intra = param_int(m, "intra_op_thread_count");
    std::string cpus = budget ? fmt_num(budget->cpus, 2) : "?";
    x.arg("instances", std::to_string(m.instances)).arg("cores", std::to_string(cores)).arg("cpus", cpus);
    x.arg("threads", std::to_string(m.instances * cores)).arg("groups", groups.empty() ? "default" : groups);
    if (is_ort(m) && m.has_graph_level && m.graph_level == 2) {
      x.status = Status::fail;
      x.variant = "opt_off";
    } else if (is_ort(m) && intra == 0 && budget && cores > 0 && static_cast<double>(m.instances * cores) > budget->cpus) {
      x.status = Status::warn;
      x.variant = "default_threads";
    } else if (m.max_batch_size > 0 && !m.dynamic_batching) {
      x.status = Status::info;
      x.variant = "no_batching";
    } else {
      x.status = Status::pass;
    }
    out.push_back(std::move(x));
  }
  return out;
}

const std::vector<std::string> kServingL2 = {"l2.serving.tail_latency", "l2.serving.unstable"};



}  // namespace
void rules_serving_config_tables(Tables& t) {
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {kDemand, Layer::L3, Pillar::serving, Section::framework,
     {"Model server thread pools vs CPUs granted", "模型服务线程池与实际可用 CPU"},
     {{"pass", {"the server's thread pools ask for {threads} threads on the {cpus} CPUs available",
                "服务的线程池共需要 {threads} 个线程，可用 CPU 为 {cpus} 个"}},
      {"over", {"the server's thread pools ask for {threads} threads, {ratio}× the {cpus} CPUs available: compute "
                "threads preempt each other and the latency tail grows",
                "服务的线程池共需要 {threads} 个线程，是可用 CPU（{cpus} 个）的 {ratio} 倍：计算线程互相抢占，尾延迟变长"}},
      {"over_quota", {"the server's thread pools ask for {threads} threads, {ratio}× the {cpus} CPUs of the cgroup quota: "
                      "ONNX Runtime sizes its default pool by the host's cores, not the quota, and its workers spin while "
                      "waiting (session.intra_op.allow_spinning), so the quota runs out early in each CFS period and the "
                      "container is throttled: P99 jumps by whole periods (100 ms by default)",
                      "服务的线程池共需要 {threads} 个线程，是 cgroup 配额（{cpus} 个 CPU）的 {ratio} 倍：ONNX Runtime "
                      "按主机核数而非配额决定默认线程池大小，且工作线程空转等待（session.intra_op.allow_spinning），"
                      "配额在每个 CFS 周期早早耗尽，容器被限流：P99 以整个周期（默认 100 ms）为单位跳升"}}},
     {"size the pools to the CPUs granted ({suggest}): Triton ONNX Runtime models `parameters { key: "
      "\"intra_op_thread_count\" value: { string_value: \"{suggest}\" } }` divided by the instances, or "
      "--backend-config=onnxruntime,enable-global-threadpool=1 with intra_op_thread_count={suggest}; ONNX Runtime "
      "sessions SetIntraOpNumThreads({suggest}) with ORT_SEQUENTIAL; PyTorch torch.set_num_threads; OMP_NUM_THREADS; "
      "under a quota also session.intra_op.allow_spinning=0. Measure with plumb bench ort MODEL.onnx",
      "按实际可用 CPU（{suggest} 个）设置线程池：Triton ONNX Runtime 模型设置 `parameters { key: "
      "\"intra_op_thread_count\" value: { string_value: \"{suggest}\" } }` 并按实例数均分，或使用 "
      "--backend-config=onnxruntime,enable-global-threadpool=1 与 intra_op_thread_count={suggest}；ONNX Runtime "
      "会话调用 SetIntraOpNumThreads({suggest}) 并使用 ORT_SEQUENTIAL；PyTorch 用 torch.set_num_threads；"
      "OMP_NUM_THREADS；有配额时再设置 session.intra_op.allow_spinning=0。用 plumb bench ort MODEL.onnx 实测"},
     "plumb check --pid <server pid> --model-repo <repository> --only l3.serving",
     {"a P99 free of CFS throttling steps; the guide measured 2.7x between ONNX Runtime defaults and a tuned "
      "intra_op_num_threads=4 + ORT_SEQUENTIAL",
      "P99 不再出现 CFS 限流造成的台阶；参考数据中 ONNX Runtime 默认设置与调优后（intra_op_num_threads=4 + "
      "ORT_SEQUENTIAL）的 P99 相差 2.7 倍"},
     kServingL2},
    {kTriton, Layer::L3, Pillar::serving, Section::framework,
     {"Triton model configuration", "Triton 模型配置"},
     {{"pass", {"{model}: {groups}, settings fit this machine", "{model}：{groups}，配置与本机相符"}},
      {"opt_off", {"{model}: optimization { graph { level: 2 } } turns every ONNX Runtime graph optimisation OFF in "
                   "Triton's ONNX Runtime backend (-1 basic, 1 extended, unset all): no fusions, no constant folding",
                   "{model}：optimization { graph { level: 2 } } 在 Triton 的 ONNX Runtime 后端中表示关闭全部图优化"
                   "（-1 为基础优化，1 为扩展优化，不设置为全部开启）：没有算子融合，也没有常量折叠"}},
      {"default_threads", {"{model}: {instances} instance(s) with ONNX Runtime's default intra-op pool, {cores} threads "
                           "each (the host's physical cores): {threads} threads for the {cpus} CPUs granted",
                           "{model}：{instances} 个实例使用 ONNX Runtime 默认 intra-op 线程池，每个 {cores} 个线程"
                           "（主机物理核数）：共 {threads} 个线程，而可用 CPU 只有 {cpus} 个"}},
      {"no_batching", {"{model}: max_batch_size > 0 but no dynamic_batching: requests run one by one",
                       "{model}：max_batch_size > 0 但未开启 dynamic_batching：请求逐个执行"}},
      {"no_config", {"{model}: {error}", "{model}：没有 config.pbtxt（由 Triton 自动补全决定）"}},
      {"unreadable", {"{model}: config.pbtxt could not be parsed: {error}", "{model}：config.pbtxt 无法解析：{error}"}}},
     {"remove `optimization { graph { level: 2 } }` (or use 1 for extended); set intra_op_thread_count so that "
      "instances x threads fits the CPUs granted; add `dynamic_batching { max_queue_delay_microseconds: 100 }` for "
      "batching models; check TensorRT precision_mode (FP16) and max_workspace_size_bytes",
      "删除 `optimization { graph { level: 2 } }`（或改为 1 使用扩展优化）；设置 intra_op_thread_count，"
      "使实例数 × 线程数不超过可用 CPU；支持批处理的模型加上 `dynamic_batching { max_queue_delay_microseconds: 100 }`；"
      "检查 TensorRT 的 precision_mode（FP16）与 max_workspace_size_bytes"},
     "plumb check --model-repo <repository> --only l3.serving.triton_config",
     {"ONNX Runtime's fused kernels back, and a pool per instance that fits the CPUs",
      "恢复 ONNX Runtime 的融合算子，每个实例的线程池与 CPU 相符"},
     kServingL2},
};
});
  t.add_rule({kDemand, {"collect.serving", "collect.process", "collect.cpu", "collect.cgroup"}, judge_demand});
  t.add_rule({kTriton, {"collect.serving", "collect.cpu", "collect.cgroup"}, judge_triton});
}

}  // namespace plumb
