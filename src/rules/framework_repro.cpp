// Framework-layer rules about speed and reproducibility settings: cudnn.benchmark, determinism
// without CUBLAS_WORKSPACE_CONFIG, CUDA_LAUNCH_BLOCKING left on, the CUDA caching allocator turned
// off, and the release-age policy.
#include <string>
#include <string_view>
#include <vector>

#include "core/catalog.h"
#include "core/knowledge/release_dates.h"
#include "core/registry.h"
#include "rules/framework_common.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr const char* kBenchmark = "l3.framework.cudnn_benchmark";
constexpr const char* kWorkspace = "l3.framework.cublas_workspace";
constexpr const char* kBlocking = "l3.framework.launch_blocking";
constexpr const char* kReleaseAge = "l3.framework.release_age";
constexpr const char* kNoCaching = "l3.framework.no_memory_caching";

const char* py_bool(bool b) { return b ? "True" : "False"; }

std::vector<Finding> judge_benchmark(const Facts& f, const Thresholds& /*th*/) {
  const auto& t = f.framework.torch;
  if (!t.has()) return {skipped(kBenchmark, "PyTorch: " + t.why())};
  if (t->cpu_only()) return {skipped(kBenchmark, "PyTorch " + t->version + " is not a CUDA build: cuDNN is not used")};
  if (!t->cudnn_benchmark) return {skipped(kBenchmark, "torch.backends.cudnn.benchmark not reported")};
  Finding r;
  r.id = kBenchmark;
  r.subject = "torch";
  r.add("torch.backends.cudnn.benchmark", py_bool(*t->cudnn_benchmark), t.source);
  if (t->cudnn_enabled) r.add("torch.backends.cudnn.enabled", py_bool(*t->cudnn_enabled), t.source);
  r.threshold = "True for convolutional models with fixed input shapes";
  r.status = *t->cudnn_benchmark ? Status::pass : Status::info;
  return {r};
}

// CUBLAS_WORKSPACE_CONFIG values that make cuBLAS deterministic (PyTorch "Reproducibility" notes,
// cuBLAS docs "Results reproducibility"): ":4096:8" or ":16:8", possibly repeated; that is,
// (":" digits ":" digits)+. Read in one pass: the value comes from a process's environment (up to
// 128 KiB), and libstdc++'s std::regex recurses once per repetition, overflowing the stack on a
// value of ten thousand pairs.
bool valid_workspace(std::string_view v) {
  std::size_t numbers = 0;
  std::size_t i = 0;
  while (i < v.size()) {
    if (v[i] != ':') return false;
    const std::size_t digits = ++i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i;
    if (i == digits) return false;
    ++numbers;
  }
  return numbers > 0 && numbers % 2 == 0;
}

bool truthy(const std::optional<EnvValue>& v) {
  return v && (v->value == "1" || v->value == "true" || v->value == "True" || v->value == "TRUE");
}

std::vector<Finding> judge_workspace(const Facts& f, const Thresholds& th) {
  const auto& t = f.framework.torch;
  bool declared = th.get("framework.require_determinism") >= 1;
  Finding r;
  r.id = kWorkspace;
  std::vector<std::string> why;  // what asks for determinism
  if (declared) {
    why.push_back("framework.require_determinism = 1");
    r.add("framework.require_determinism", "1", "--config");
  }
  if (t.has() && t->deterministic_algorithms.value_or(false)) {
    why.push_back("torch.are_deterministic_algorithms_enabled()");
    r.add("torch.are_deterministic_algorithms_enabled()", "True", t.source);
  }
  if (t.has() && t->cudnn_deterministic.value_or(false)) {
    why.push_back("torch.backends.cudnn.deterministic");
    r.add("torch.backends.cudnn.deterministic", "True", t.source);
  }
  for (const char* k : {"TF_DETERMINISTIC_OPS", "TF_CUDNN_DETERMINISTIC"}) {
    auto v = job_env(f, k);
    if (truthy(v)) {
      why.emplace_back(k);
      r.add(k, v->value, v->source);
    }
  }
  if (why.empty()) {
    if (!t.has()) return {skipped(kWorkspace, "PyTorch: " + t.why())};
    r.status = Status::pass;
    r.variant = "not_requested";
    return {r};
  }
  if (!job_env_known(f)) return {skipped(kWorkspace, job_env_why(f))};
  std::string asked;
  for (const auto& w : why) asked += (asked.empty() ? "" : ", ") + w;
  r.arg("requested_by", asked);
  auto ws = job_env(f, "CUBLAS_WORKSPACE_CONFIG");
  r.add("CUBLAS_WORKSPACE_CONFIG", ws ? ws->value : "(unset)", ws ? ws->source : f.framework.env.source);
  r.threshold = "CUBLAS_WORKSPACE_CONFIG=:4096:8 or :16:8";
  if (ws && valid_workspace(ws->value)) {
    r.status = Status::pass;
    r.arg("value", ws->value);
    return {r};
  }
  r.status = Status::warn;
  r.variant = ws ? "invalid" : "warn";
  r.arg("value", ws ? ws->value : "");
  return {r};
}

std::vector<Finding> judge_blocking(const Facts& f, const Thresholds& /*th*/) {
  if (!job_env_known(f)) return {skipped(kBlocking, job_env_why(f))};
  Finding r;
  r.id = kBlocking;
  auto v = job_env(f, "CUDA_LAUNCH_BLOCKING");
  r.threshold = "CUDA_LAUNCH_BLOCKING unset or 0 outside debugging";
  if (v && v->value == "1") {
    r.status = Status::warn;
    r.add("CUDA_LAUNCH_BLOCKING", v->value, v->source);
  } else {
    r.status = Status::pass;
    r.add("CUDA_LAUNCH_BLOCKING", v ? v->value : "(unset)", v ? v->source : std::string());
  }
  return {r};
}

// PYTORCH_NO_CUDA_MEMORY_CACHING: PyTorch's CUDA allocator only asks whether the variable exists
// (CUDACachingAllocator.cpp forceUncachedAllocator: getenv(...) != nullptr), so "0" or an empty
// value turns the cache off as surely as "1".
std::vector<Finding> judge_no_caching(const Facts& f, const Thresholds& /*th*/) {
  if (!job_env_known(f)) return {skipped(kNoCaching, job_env_why(f))};
  Finding r;
  r.id = kNoCaching;
  auto v = job_env(f, "PYTORCH_NO_CUDA_MEMORY_CACHING");
  r.threshold = "PYTORCH_NO_CUDA_MEMORY_CACHING not set at all";
  if (!v) {
    r.status = Status::pass;
    r.add("PYTORCH_NO_CUDA_MEMORY_CACHING", "(unset)", f.framework.env.source);
    return {r};
  }
  r.status = Status::warn;
  r.add("PYTORCH_NO_CUDA_MEMORY_CACHING", v->value.empty() ? "(set, empty)" : v->value, v->source);
  if (v->value.empty() || v->value == "0" || v->value == "false" || v->value == "False") r.variant = "zero";
  r.arg("value", v->value);
  return {r};
}

// One product's age against the policy.
Finding age_finding(const std::string& product, const std::string& label, const std::string& version,
                    const std::string& source, const std::string& now, int min_months) {
  std::string subject = label + " " + version;
  auto rd = release_date(product, version);
  std::string note;
  if (!rd) {
    auto newest = newest_release(product);
    if (!newest || compare_versions(release_key(product, version), newest->version) <= 0) {
      return skipped(kReleaseAge, "no release date known for " + subject, subject);
    }
    // Newer than every dated release: at most as old as the newest one.
    rd = newest;
    note = "newer than " + newest->version;
  }
  auto months = months_since(*rd, now);
  if (!months) return skipped(kReleaseAge, "run date not recorded", subject);
  Finding r;
  r.id = kReleaseAge;
  r.subject = subject;
  std::string date = std::to_string(rd->year) + "-" + (rd->month < 10 ? "0" : "") + std::to_string(rd->month);
  if (rd->day > 0) date += std::string("-") + (rd->day < 10 ? "0" : "") + std::to_string(rd->day);
  r.add(label, version, source);
  r.add("released", note.empty() ? date : "after " + date + " (" + note + ")", rd->source);
  r.arg("what", subject).arg("date", date).arg("months", std::to_string(*months)).arg("min", std::to_string(min_months));
  r.threshold = ">= " + std::to_string(min_months) + " months since release";
  r.status = *months < min_months ? Status::info : Status::pass;
  return r;
}

std::vector<Finding> judge_release_age(const Facts& f, const Thresholds& th) {
  if (th.get("framework.release_age_check") < 1) return {};  // policy off: no opinion
  int min_months = static_cast<int>(th.get("framework.min_release_age_months"));
  const std::string& now = f.meta.started_at;
  std::vector<Finding> out;
  const auto& t = f.framework.torch;
  if (t.has()) {
    out.push_back(age_finding("pytorch", "PyTorch", t->version, t.source, now, min_months));
    if (t->cuda) out.push_back(age_finding("cuda", "CUDA", *t->cuda, t.source, now, min_months));
  }
  if (f.gpu.driver_version.has()) {
    out.push_back(age_finding("nvidia-driver", "NVIDIA driver", *f.gpu.driver_version, f.gpu.driver_version.source,
                              now, min_months));
  }
  if (out.empty()) out.push_back(skipped(kReleaseAge, "PyTorch: " + t.why() + "; driver: " + f.gpu.driver_version.why()));
  return out;
}




}  // namespace
void rules_framework_repro_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"framework.require_determinism", 0, "0|1",
     {"1: the job needs bit-reproducible results, so check the determinism settings",
      "1：任务需要逐位可复现的结果，检查确定性相关设置"}},
    {"framework.release_age_check", 0, "0|1",
     {"1: report framework, CUDA and driver releases younger than framework.min_release_age_months",
      "1：报告发布时间短于 framework.min_release_age_months 的框架、CUDA 和驱动版本"}},
    {"framework.min_release_age_months", 6, "months",
     {"stability policy: releases younger than this are reported (when the check is on)",
      "稳定性策略：发布时间短于该值的版本会被报告（检查开启时）"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {kBenchmark, Layer::L3, Pillar::compute, Section::framework,
     {"cudnn.benchmark for convolutional workloads", "卷积负载的 cudnn.benchmark"},
     {{"pass", {"torch.backends.cudnn.benchmark is True: cuDNN picks the fastest convolution algorithm per shape.",
                "torch.backends.cudnn.benchmark 为 True：cuDNN 会为每种输入形状选择最快的卷积算法。"}},
      {"info",
       {"torch.backends.cudnn.benchmark is False (the default a fresh interpreter sees; your script may set it). For "
        "convolutional models with fixed input shapes, True lets cuDNN pick the fastest algorithm.",
        "torch.backends.cudnn.benchmark 为 False（新解释器中的默认值；训练脚本可能会修改）。对于输入形状固定的卷积模型，"
        "设为 True 可让 cuDNN 选择最快的算法。"}}},
     {"Set torch.backends.cudnn.benchmark = True at the start of training when input shapes do not change; keep it "
      "False for variable shapes or bit-exact reproducibility.",
      "输入形状固定时，在训练开始处设置 torch.backends.cudnn.benchmark = True；输入形状变化或需要逐位复现时保持 False。"},
     "python -c \"import torch; print(torch.backends.cudnn.benchmark)\"",
     {"faster convolutions (often 5-20 % per step for CNNs)", "卷积更快（CNN 每步常见提升 5-20%）"},
     {}},
    {kWorkspace, Layer::L3, Pillar::compute, Section::framework,
     {"Determinism settings (CUBLAS_WORKSPACE_CONFIG)", "确定性设置（CUBLAS_WORKSPACE_CONFIG）"},
     {{"pass", {"Determinism is requested ({requested_by}) and CUBLAS_WORKSPACE_CONFIG={value} makes cuBLAS "
                "deterministic.",
                "已要求确定性（{requested_by}），且 CUBLAS_WORKSPACE_CONFIG={value} 保证 cuBLAS 结果确定。"}},
      {"not_requested",
       {"Determinism is not requested (set framework.require_determinism = 1 in --config to check it).",
        "未要求确定性（可在 --config 中设置 framework.require_determinism = 1 以检查）。"}},
      {"warn",
       {"Determinism is requested ({requested_by}) but CUBLAS_WORKSPACE_CONFIG is not set: cuBLAS matmuls stay "
        "non-deterministic on CUDA >= 10.2, and torch.use_deterministic_algorithms(True) raises on them.",
        "已要求确定性（{requested_by}），但未设置 CUBLAS_WORKSPACE_CONFIG：在 CUDA >= 10.2 上 cuBLAS 矩阵乘结果仍不确定，"
        "torch.use_deterministic_algorithms(True) 会因此报错。"}},
      {"invalid",
       {"Determinism is requested ({requested_by}) but CUBLAS_WORKSPACE_CONFIG={value} is not a valid setting "
        "(:4096:8 or :16:8).",
        "已要求确定性（{requested_by}），但 CUBLAS_WORKSPACE_CONFIG={value} 不是有效取值（:4096:8 或 :16:8）。"}}},
     {"Export CUBLAS_WORKSPACE_CONFIG=:4096:8 (or :16:8 to save memory) in the job's environment before CUDA "
      "starts, together with torch.use_deterministic_algorithms(True, warn_only=True).",
      "在 CUDA 初始化之前于任务环境中导出 CUBLAS_WORKSPACE_CONFIG=:4096:8（或更省显存的 :16:8），并配合 "
      "torch.use_deterministic_algorithms(True, warn_only=True)。"},
     "tr '\\0' '\\n' < /proc/<pid>/environ | grep CUBLAS_WORKSPACE_CONFIG",
     {"repeatable results between runs", "多次运行结果一致"},
     {}},
    {kBlocking, Layer::L3, Pillar::compute, Section::framework,
     {"Synchronous kernel launches (CUDA_LAUNCH_BLOCKING)", "同步内核启动（CUDA_LAUNCH_BLOCKING）"},
     {{"pass", {"CUDA_LAUNCH_BLOCKING is not set to 1: kernel launches stay asynchronous.",
                "CUDA_LAUNCH_BLOCKING 未设为 1：内核启动保持异步。"}},
      {"warn",
       {"CUDA_LAUNCH_BLOCKING=1: every kernel launch waits for the GPU, serialising CPU and GPU work. Useful to find "
        "the real failing kernel, costly when left on.",
        "CUDA_LAUNCH_BLOCKING=1：每次内核启动都等待 GPU 完成，CPU 与 GPU 工作被串行化。定位真实出错内核时有用，"
        "长期开启代价很高。"}}},
     {"Unset CUDA_LAUNCH_BLOCKING (or set it to 0) once debugging is done.",
      "调试结束后取消 CUDA_LAUNCH_BLOCKING（或设为 0）。"},
     "tr '\\0' '\\n' < /proc/<pid>/environ | grep CUDA_LAUNCH_BLOCKING",
     {"GPU work overlaps the CPU again (often tens of percent)", "GPU 与 CPU 工作重新并行（常见提升数十个百分点）"},
     {"l2.compute.gpu_underutilized"}},
    {kNoCaching, Layer::L3, Pillar::memory, Section::framework,
     {"PyTorch CUDA caching allocator (PYTORCH_NO_CUDA_MEMORY_CACHING)", "PyTorch CUDA 缓存分配器（PYTORCH_NO_CUDA_MEMORY_CACHING）"},
     {{"pass", {"PYTORCH_NO_CUDA_MEMORY_CACHING is not set: PyTorch caches and reuses GPU memory.",
                "未设置 PYTORCH_NO_CUDA_MEMORY_CACHING：PyTorch 会缓存并复用显存。"}},
      {"warn",
       {"PYTORCH_NO_CUDA_MEMORY_CACHING={value}: every tensor allocation goes straight to cudaMalloc and every free "
        "to cudaFree, which synchronises the device: slow steps, GPU idle gaps and a VRAM sawtooth. It is meant for "
        "cuda-memcheck sessions only.",
        "PYTORCH_NO_CUDA_MEMORY_CACHING={value}：每次张量分配都直接调用 cudaMalloc，每次释放都调用会同步设备的 "
        "cudaFree：训练步变慢、GPU 出现空闲间隙、显存呈锯齿状。该变量只应在 cuda-memcheck 调试时使用。"}},
      {"zero",
       {"PYTORCH_NO_CUDA_MEMORY_CACHING is set (to \"{value}\"): PyTorch only checks that the variable exists, so "
        "even 0 or an empty value turns the caching allocator off: every allocation hits cudaMalloc/cudaFree.",
        "设置了 PYTORCH_NO_CUDA_MEMORY_CACHING（值为 \"{value}\"）：PyTorch 只检查该变量是否存在，即使设为 0 或空值"
        "也会关闭缓存分配器：每次分配都会调用 cudaMalloc/cudaFree。"}}},
     {"Remove the variable from the job's environment (unset PYTORCH_NO_CUDA_MEMORY_CACHING; setting it to 0 is not "
      "enough).",
      "从任务环境中删除该变量（unset PYTORCH_NO_CUDA_MEMORY_CACHING；设为 0 并不够）。"},
     "tr '\\0' '\\n' < /proc/<pid>/environ | grep PYTORCH_NO_CUDA_MEMORY_CACHING",
     {"allocation cost back to microseconds; no device synchronisation per free",
      "分配开销回到微秒级；释放时不再同步设备"},
     {"l2.watch.vram_sawtooth", "l2.compute.gpu_underutilized", "l2.trace.sync_stalls", "l2.trace.gpu_idle"}},
    {kReleaseAge, Layer::L3, Pillar::platform, Section::framework,
     {"Release age (stability policy)", "版本发布时长（稳定性策略）"},
     {{"pass", {"{what} was released {date}, {months} months ago (policy: at least {min}).",
                "{what} 发布于 {date}，距今 {months} 个月（策略：至少 {min} 个月）。"}},
      {"info",
       {"{what} was released {date}, only {months} months ago (policy: at least {min}): newer releases carry more "
        "unknown bugs; pin it deliberately.",
        "{what} 发布于 {date}，距今仅 {months} 个月（策略：至少 {min} 个月）：新版本的未知问题更多，请有意识地锁定版本。"}}},
     {"Prefer a release older than {min} months for production training, or record why this one is needed.",
      "生产训练优先使用发布超过 {min} 个月的版本，或记录必须使用该版本的原因。"},
     "plumb check --only l3.framework.release_age --config policy.toml",
     {},
     {}},
};
});
  t.add_rule({kBenchmark, {"collect.python"}, judge_benchmark});
  t.add_rule({kWorkspace, {"collect.python"}, judge_workspace});
  t.add_rule({kBlocking, {"collect.python"}, judge_blocking});
  t.add_rule({kReleaseAge, {"collect.python"}, judge_release_age});
  t.add_rule({kNoCaching, {"collect.python"}, judge_no_caching});
}

}  // namespace plumb
