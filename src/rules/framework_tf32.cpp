// Framework layer: TF32. On Ampere and newer GPUs FP32 matmuls and convolutions may run on tensor
// cores with a 10-bit mantissa; whether they do depends on torch's switches and two environment
// variables (NVIDIA_TF32_OVERRIDE=0 turns TF32 off in cuBLAS/cuDNN for every framework,
// TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 turns it on for torch's matmuls). Two machines, or a GPU and
// a CPU backend, that differ here produce outputs that differ around 1e-3 relative.
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "rules/framework_common.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr const char* kFrameworkTf32Id = "l3.framework.tf32";

const char* on_off(bool v) { return v ? "on" : "off"; }

// Ampere (8.0) and newer have TF32 tensor cores; an unknown capability counts as "maybe".
std::optional<bool> has_tf32_gpu(const TorchFacts& t) {
  if (t.devices.empty()) return std::nullopt;
  for (const auto& d : t.devices) {
    auto major = parse_int(split(d.capability, '.').front());
    if (major && *major >= 8) return true;
  }
  return false;
}

std::vector<Finding> judge_tf32(const Facts& f, const Thresholds& th) {
  const auto& t = f.framework.torch;
  auto override_env = job_env(f, "NVIDIA_TF32_OVERRIDE");
  auto cublas_env = job_env(f, "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE");
  if (!t.has() && !override_env && !cublas_env) return {skipped(kFrameworkTf32Id, "PyTorch: " + t.why())};
  Finding r;
  r.id = kFrameworkTf32Id;
  bool matmul = false;
  bool cudnn = false;
  std::string precision = "?";
  if (t.has()) {
    if (t->tf32_matmul) r.add("torch.backends.cuda.matmul.allow_tf32", *t->tf32_matmul ? "True" : "False", t.source);
    if (t->tf32_cudnn) r.add("torch.backends.cudnn.allow_tf32", *t->tf32_cudnn ? "True" : "False", t.source);
    if (!t->float32_matmul_precision.empty()) {
      precision = t->float32_matmul_precision;
      r.add("torch.get_float32_matmul_precision()", precision, t.source);
    }
    // "high" and "medium" let matmuls use TF32 (or bf16 passes) even when allow_tf32 is False.
    matmul = t->tf32_matmul.value_or(false) || precision == "high" || precision == "medium";
    cudnn = t->tf32_cudnn.value_or(true);  // torch's default for convolutions
  }
  if (cublas_env) {
    r.add("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", cublas_env->value, cublas_env->source);
    if (cublas_env->value == "1") matmul = true;
  }
  bool forced_off = override_env && override_env->value == "0";
  if (override_env) r.add("NVIDIA_TF32_OVERRIDE", override_env->value, override_env->source);
  if (forced_off) matmul = cudnn = false;
  auto gpu = t.has() ? has_tf32_gpu(*t) : std::nullopt;
  // Without the probe torch's convolution switch is unknown unless the override settles it.
  r.arg("matmul", on_off(matmul)).arg("conv", t.has() || forced_off ? on_off(cudnn) : "unknown").arg("precision", precision);
  r.arg("override", forced_off ? "NVIDIA_TF32_OVERRIDE=0 turns TF32 off in cuBLAS/cuDNN" : "no global override");
  r.arg("override_zh", forced_off ? "NVIDIA_TF32_OVERRIDE=0 在 cuBLAS/cuDNN 中关闭了 TF32" : "无全局覆盖");
  r.threshold = "informational; TF32 off (matmul and convolutions) when determinism is asked for";
  // What asks for bit-for-bit comparable results (the same switches l3.framework.cublas_workspace reads).
  bool repro = th.get("framework.require_determinism") >= 1 || (t.has() && (t->deterministic_algorithms.value_or(false) ||
                                                                           t->cudnn_deterministic.value_or(false)));
  if (gpu && !*gpu) {
    r.status = Status::info;
    r.variant = "no_tf32_gpu";
    return {r};
  }
  if (repro && (matmul || cudnn)) {
    r.status = Status::warn;
    r.variant = "repro";
    return {r};
  }
  r.status = Status::info;
  r.variant = forced_off ? "forced_off" : (matmul || cudnn ? "info" : "off");
  return {r};
}



}  // namespace
void rules_framework_tf32_tables(Tables& t) {
  t.add_findings([] {
  return std::vector<CatalogEntry>{{
    kFrameworkTf32Id, Layer::L3, Pillar::compute, Section::framework,
    {"TF32 for FP32 matmuls and convolutions", "FP32 矩阵乘与卷积的 TF32 设置"},
    {
        {"info", {"TF32 for convolutions: {conv}, for matmuls: {matmul} (precision '{precision}'), {override}: on "
                  "Ampere and newer these FP32 ops round to a 10-bit mantissa, so outputs differ around 1e-3 from a CPU, a "
                  "pre-Ampere GPU, or a machine configured otherwise",
                  "卷积 TF32：{conv}，矩阵乘 TF32：{matmul}（精度 '{precision}'），{override_zh}：在 Ampere 及更新的 GPU 上这些 FP32 "
                  "运算按 10 位尾数舍入，输出与 CPU、Ampere 之前的 GPU 或配置不同的机器相差约 1e-3"}},
        {"off", {"TF32 is off for matmuls and convolutions (precision '{precision}'): FP32 results are full precision",
                 "矩阵乘与卷积均未使用 TF32（精度 '{precision}'）：FP32 结果为完整精度"}},
        {"forced_off", {"{override}: every FP32 matmul and convolution runs at full FP32 precision (and speed) whatever "
                        "torch's switches say; a machine without the variable computes differently",
                        "{override_zh}：无论 torch 的开关如何，所有 FP32 矩阵乘与卷积均按完整 FP32 精度（与速度）运行；"
                        "未设置该变量的机器计算结果会不同"}},
        {"no_tf32_gpu", {"no GPU here has TF32 tensor cores (compute capability below 8.0): FP32 is exact here but an "
                         "Ampere-or-newer machine with the same code uses TF32 for convolutions ({conv}) and matmuls ({matmul})",
                         "本机 GPU 不支持 TF32（计算能力低于 8.0）：此处 FP32 为完整精度，但同样代码在 Ampere 及更新机器上"
                         "卷积（{conv}）与矩阵乘（{matmul}）会使用 TF32"}},
        {"repro", {"determinism is asked for, but TF32 is on (convolutions: {conv}, matmuls: {matmul}, precision "
                   "'{precision}'): results still differ between GPU generations and from CPU runs",
                   "已要求确定性，但 TF32 处于开启状态（卷积：{conv}，矩阵乘：{matmul}，精度 '{precision}'）：不同代 GPU 之间、"
                   "与 CPU 运行之间结果仍会不同"}},
    },
    {"To compare outputs across machines or backends, turn TF32 off in code (torch.backends.cuda.matmul.allow_tf32 = "
     "False; torch.backends.cudnn.allow_tf32 = False; torch.set_float32_matmul_precision('highest')) or for every "
     "library with NVIDIA_TF32_OVERRIDE=0; for speed, turn it on deliberately on every machine alike",
     "需要跨机器或跨后端对比输出时，在代码中关闭 TF32（torch.backends.cuda.matmul.allow_tf32 = False；"
     "torch.backends.cudnn.allow_tf32 = False；torch.set_float32_matmul_precision('highest')），或用 NVIDIA_TF32_OVERRIDE=0 "
     "对所有库关闭；追求速度时则在所有机器上统一开启"},
    "python -c \"import torch; print(torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32, "
    "torch.get_float32_matmul_precision())\"; env | grep -E 'TF32'",
    {"outputs comparable between machines and backends (or, turned on deliberately, up to 8x FP32 matmul throughput "
     "on Ampere+)",
     "不同机器与后端之间输出可比（或有意开启时，Ampere 及以上 FP32 矩阵乘吞吐最高提升约 8 倍）"},
    {},
}};
});
  t.add_rule({kFrameworkTf32Id, {"collect.python", "collect.process"}, judge_tf32});
}

}  // namespace plumb
