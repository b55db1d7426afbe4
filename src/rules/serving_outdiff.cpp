// Rule of `plumb outdiff`: two backends' outputs agree within the tolerance rule asked for
// (numpy.isclose or Polygraphy's) and within the field guide's bar on the mean absolute error
// (mean |a-b| < 1e-4 before switching a model to another backend), one finding per array.
#include <cstdio>

#include "analyze/npy.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {
namespace {

constexpr const char* kServingOutdiffId = "l2.serving.output_diff";

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::vector<Finding> judge_outdiff(const Facts& facts, const Thresholds& th) {
  std::vector<Finding> out;
  const auto& d = facts.outdiff;
  if (!d.collected) return out;  // only `plumb outdiff` feeds this rule
  const double bar = th.get("serving.outdiff_mean_abs_max");
  const std::string rule = d.mode == "polygraphy" ? "|a-b| > atol and |a-b|/|b| > rtol (Polygraphy)"
                                                  : "|a-b| <= atol + rtol*|b| (numpy.isclose)";
  const std::string src = d.file_a + " vs " + d.file_b;
  for (const auto& a : d.arrays) {
    Finding f;
    f.id = kServingOutdiffId;
    f.subject = a.name;
    f.threshold = rule + ", atol " + sci(d.atol) + ", rtol " + sci(d.rtol) + (d.equal_nan ? ", NaN == NaN" : "") +
                  "; mean |a-b| < " + sci(bar);
    f.arg("name", a.name).arg("detail", a.detail).arg("bar", sci(bar)).arg("atol", sci(d.atol)).arg("rtol", sci(d.rtol));
    if (a.status == "shape" || a.status == "missing_a" || a.status == "missing_b" || a.status == "dtype") {
      f.status = Status::fail;
      f.variant = a.status;
      f.add("difference", a.detail, src);
      out.push_back(std::move(f));
      continue;
    }
    f.add("dtype / shape", a.dtype_a + " " + npy_shape_text(a.shape_a) + (a.fortran_a ? " F" : "") + " vs " + a.dtype_b + " " +
                               npy_shape_text(a.shape_b) + (a.fortran_b ? " F" : ""), src);
    f.add("mismatches", std::to_string(a.mismatches) + " of " + std::to_string(a.elements), src);
    if (a.mismatches > 0) f.add("first mismatch", npy_shape_text(a.first_mismatch) + " " + a.first_values, src);
    f.add("absolute error max / mean / median / p99",
          sci(a.max_abs) + " / " + sci(a.mean_abs) + " / " + sci(a.median_abs) + " / " + sci(a.p99_abs), src);
    f.add("relative error max / mean / median / p99",
          sci(a.max_rel) + " / " + sci(a.mean_rel) + " / " + sci(a.median_rel) + " / " + sci(a.p99_rel), src);
    if (a.nonfinite > 0) f.add("pairs with NaN or inf", std::to_string(a.nonfinite), src);
    f.arg("mismatches", std::to_string(a.mismatches)).arg("elements", std::to_string(a.elements));
    f.arg("first", npy_shape_text(a.first_mismatch) + " " + a.first_values);
    f.arg("mean", sci(a.mean_abs)).arg("max", sci(a.max_abs));
    if (a.mismatches > 0) {
      f.status = Status::fail;
      f.variant = "mismatch";
    } else if (a.mean_abs >= bar) {
      f.status = Status::fail;
      f.variant = "mean";
    } else {
      f.status = Status::pass;
    }
    out.push_back(std::move(f));
  }
  return out;
}




}  // namespace
void rules_serving_outdiff_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"serving.outdiff_mean_abs_max", 1e-4, "absolute",
     {"largest mean |a-b| between two backends' outputs that still passes (the field guide's bar before switching backend)",
      "两个后端输出之间平均 |a-b| 的上限（切换后端前的判定标准）"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {kServingOutdiffId, Layer::L2, Pillar::serving, Section::framework,
     {"Backend output agreement", "后端输出一致性"},
     {{"pass", {"{name}: all {elements} elements within atol {atol} / rtol {rtol}; mean |a-b| {mean} < {bar}",
                "{name}：全部 {elements} 个元素在 atol {atol} / rtol {rtol} 之内；平均 |a-b| {mean} < {bar}"}},
      {"mismatch", {"{name}: {mismatches} of {elements} elements outside atol {atol} / rtol {rtol}, first at {first}; "
                    "max |a-b| {max}, mean {mean}",
                    "{name}：{elements} 个元素中有 {mismatches} 个超出 atol {atol} / rtol {rtol}，首个位于 {first}；"
                    "最大 |a-b| {max}，平均 {mean}"}},
      {"mean", {"{name}: every element within tolerance, but mean |a-b| {mean} is not below {bar}: the backends "
                "drift systematically",
                "{name}：每个元素都在容差之内，但平均 |a-b| {mean} 未低于 {bar}：两个后端存在系统性偏差"}},
      {"shape", {"{name}: shapes differ, {detail}", "{name}：形状不同，{detail}"}},
      {"missing_a", {"{name}: output missing from A ({detail})", "{name}：A 中缺少该输出（{detail}）"}},
      {"missing_b", {"{name}: output missing from B ({detail})", "{name}：B 中缺少该输出（{detail}）"}},
      {"dtype", {"{name}: not comparable: {detail}", "{name}：无法比较：{detail}"}}},
     {"Find the first diverging layer: export the intermediate outputs of both backends (Polygraphy "
      "`polygraphy run model.onnx --onnxrt --trt --onnx-outputs mark all --trt-outputs mark all`) and compare them "
      "with plumb outdiff; check FP16/TF32 or fused kernels on the new backend, the opset and the input "
      "preprocessing (layout, dtype, normalisation) before loosening --atol/--rtol.",
      "定位最先出现偏差的层：导出两个后端的中间输出（Polygraphy `polygraphy run model.onnx --onnxrt --trt "
      "--onnx-outputs mark all --trt-outputs mark all`）并用 plumb outdiff 比较；放宽 --atol/--rtol 之前，"
      "先检查新后端的 FP16/TF32 或融合算子、opset 以及输入预处理（布局、数据类型、归一化）。"},
     "plumb outdiff A.npz B.npz",
     {"a backend switch that keeps the model's answers", "切换后端而不改变模型的输出"},
     {}},
};
});
  t.add_rule({kServingOutdiffId, {}, judge_outdiff});
}

}  // namespace plumb
