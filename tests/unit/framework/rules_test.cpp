// Framework-layer rules: a passing and a failing case each, built from probe answers and GPU facts.
#include <gtest/gtest.h>

#include "../../test_util.h"
#include "collect/python_probe.h"
#include "core/catalog.h"
#include "core/registry.h"

namespace plumb {
namespace {

std::vector<Finding> run_rule(const std::string& id, const Facts& f, const Thresholds& th = Thresholds()) {
  for (const auto& r : rules()) {
    if (r.id == id) return r.judge(f, th);
  }
  ADD_FAILURE() << "no rule " << id;
  return {};
}

const Finding* subject(const std::vector<Finding>& v, const std::string& s) {
  for (const auto& f : v) {
    if (f.subject == s) return &f;
  }
  return nullptr;
}

Facts with_probe(const std::string& recorded) {
  Facts f;
  auto fw = parse_probe_output(test::read_fixture("framework/probe/" + recorded), "/usr/bin/python3");
  EXPECT_TRUE(fw.ok());
  if (fw) f.framework = *fw;
  return f;
}

// GPU layer facts as the GPU helper's collector fills them: 8 GPUs, driver and its CUDA version.
void with_gpus(Facts& f, const std::string& driver, int cuda) {
  f.gpu.collected = true;
  f.gpu.driver_version = Fact<std::string>::of(driver, "nvmlSystemGetDriverVersion");
  f.gpu.cuda_driver_version = Fact<int>::of(cuda, "nvmlSystemGetCudaDriverVersion");
  for (int i = 0; i < 8; ++i) f.gpu.devices.push_back({"GPU-" + std::to_string(i), "0000:1" + std::to_string(i) + ":00.0", "NVIDIA H100 80GB HBM3"});
}

TEST(CudaUnavailable, DebianCpuOnlyTorchWithoutGpuIsInfoAndSaysWhy) {
  Facts f = with_probe("debian12-python3-torch-1.13-cpu.txt");
  auto v = run_rule("l3.framework.cuda_unavailable", f);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, Status::info);
  EXPECT_EQ(v[0].variant, "nogpu_cpu_only");
  std::string msg = finding_message(v[0], Lang::en);
  EXPECT_NE(msg.find("CPU-only build"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1.13.0a0"), std::string::npos);
  EXPECT_NE(finding_message(v[0], Lang::zh).find("仅 CPU 版本"), std::string::npos);
  EXPECT_EQ(v[0].evidence[1].value, "None");
  EXPECT_EQ(v[0].evidence[1].source, "python probe (/usr/bin/python3)");
}

TEST(CudaUnavailable, CpuOnlyTorchOnAGpuHostFails) {
  Facts f = with_probe("debian12-python3-torch-1.13-cpu.txt");
  with_gpus(f, "550.90.12", 12040);
  auto v = run_rule("l3.framework.cuda_unavailable", f);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, Status::fail);
  EXPECT_EQ(v[0].variant, "cpu_only");
}

TEST(CudaUnavailable, DriverTooOldIsNamed) {
  Facts f = with_probe("gpu-driver-too-old-torch2.5-cu124.txt");
  with_gpus(f, "470.82.01", 11040);
  auto v = run_rule("l3.framework.cuda_unavailable", f);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, Status::fail);
  EXPECT_EQ(v[0].variant, "driver_too_old");
  EXPECT_NE(finding_message(v[0], Lang::en).find("supports only CUDA 11.4"), std::string::npos);
}

TEST(CudaUnavailable, EmptyCudaVisibleDevicesIsNamed) {
  Facts f = with_probe("gpu-driver-too-old-torch2.5-cu124.txt");
  f.framework.torch.value->cuda_warning.clear();
  f.framework.env.value->emplace("CUDA_VISIBLE_DEVICES", "");
  with_gpus(f, "550.90.12", 12040);
  auto v = run_rule("l3.framework.cuda_unavailable", f);
  EXPECT_EQ(v[0].status, Status::fail);
  EXPECT_EQ(v[0].variant, "visible_devices");
}

TEST(CudaUnavailable, PassesWhenCudaWorks) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  with_gpus(f, "550.90.12", 12040);
  auto v = run_rule("l3.framework.cuda_unavailable", f);
  EXPECT_EQ(v[0].status, Status::pass);
  EXPECT_EQ(v[0].args.at("count"), "8");
}

TEST(CudaUnavailable, SkipsWithoutTorch) {
  Facts f = with_probe("pyenv-3.11-no-packages.txt");
  auto v = run_rule("l3.framework.cuda_unavailable", f);
  EXPECT_EQ(v[0].status, Status::skip);
  EXPECT_NE(v[0].args.at("reason").find("not installed"), std::string::npos);
}

TEST(DriverTooOld, NewerMajorFailsSameMajorWarnsOlderPasses) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");  // torch CUDA 12.4, TF CUDA 12.2
  with_gpus(f, "470.82.01", 11040);
  auto v = run_rule("l3.framework.cuda_driver_too_old", f);
  ASSERT_NE(subject(v, "torch"), nullptr);
  EXPECT_EQ(subject(v, "torch")->status, Status::fail);
  EXPECT_EQ(subject(v, "torch")->variant, "major");
  ASSERT_NE(subject(v, "tensorflow"), nullptr);

  Facts g = f;
  g.gpu.driver_version.value = "535.161.08";
  g.gpu.cuda_driver_version.value = 12020;  // CUDA 12.2: torch 12.4 runs by minor-version compatibility
  v = run_rule("l3.framework.cuda_driver_too_old", g);
  EXPECT_EQ(subject(v, "torch")->status, Status::warn);
  EXPECT_EQ(subject(v, "torch")->variant, "minor_compat");
  EXPECT_EQ(subject(v, "tensorflow")->status, Status::pass);

  g.gpu.driver_version.value = "520.61.05";  // below the 12.x family minimum 525
  v = run_rule("l3.framework.cuda_driver_too_old", g);
  EXPECT_EQ(subject(v, "torch")->variant, "below_family");

  g.gpu.driver_version.value = "550.90.12";
  g.gpu.cuda_driver_version.value = 12040;
  v = run_rule("l3.framework.cuda_driver_too_old", g);
  EXPECT_EQ(subject(v, "torch")->status, Status::pass);
}

TEST(DriverTooOld, SkipsWithoutDriverFactsOrForCpuBuilds) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  auto v = run_rule("l3.framework.cuda_driver_too_old", f);
  EXPECT_EQ(subject(v, "torch")->status, Status::skip);
  Facts c = with_probe("debian12-python3-torch-1.13-cpu.txt");
  v = run_rule("l3.framework.cuda_driver_too_old", c);
  EXPECT_EQ(v[0].status, Status::skip);
  EXPECT_NE(v[0].args.at("reason").find("not a CUDA build"), std::string::npos);
}

TEST(LibraryMismatch, CudnnBuiltVsLoaded) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  auto v = run_rule("l3.framework.library_mismatch", f);
  EXPECT_EQ(subject(v, "cudnn")->status, Status::pass);
  // NCCL needs the job's loaded copy from the GPU layer, not merged yet.
  EXPECT_EQ(subject(v, "nccl")->status, Status::skip);
  EXPECT_NE(subject(v, "nccl")->args.at("reason").find("library facts not collected"), std::string::npos);
  f.framework.torch.value->cudnn_runtime = "8.9.7";
  v = run_rule("l3.framework.library_mismatch", f);
  EXPECT_EQ(subject(v, "cudnn")->status, Status::warn);
}

TEST(CudnnBenchmark, OffIsInfoOnIsPass) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  auto v = run_rule("l3.framework.cudnn_benchmark", f);
  EXPECT_EQ(v[0].status, Status::info);
  f.framework.torch.value->cudnn_benchmark = true;
  v = run_rule("l3.framework.cudnn_benchmark", f);
  EXPECT_EQ(v[0].status, Status::pass);
}

TEST(CublasWorkspace, DeterminismWithoutWorkspaceWarns) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  auto v = run_rule("l3.framework.cublas_workspace", f);
  EXPECT_EQ(v[0].status, Status::pass);
  EXPECT_EQ(v[0].variant, "not_requested");

  Thresholds th;
  th.set("framework.require_determinism", 1);
  v = run_rule("l3.framework.cublas_workspace", f, th);
  EXPECT_EQ(v[0].status, Status::warn);

  f.host.process.environ = Fact<std::map<std::string, std::string>>::of({{"CUBLAS_WORKSPACE_CONFIG", ":4096:8"}}, "/proc/42/environ");
  v = run_rule("l3.framework.cublas_workspace", f, th);
  EXPECT_EQ(v[0].status, Status::pass);
  EXPECT_EQ(v[0].evidence.back().source, "/proc/42/environ");

  f.host.process.environ.value->at("CUBLAS_WORKSPACE_CONFIG") = "4096";
  v = run_rule("l3.framework.cublas_workspace", f, th);
  EXPECT_EQ(v[0].variant, "invalid");

  // Requested by the environment (TensorFlow's switch) rather than by configuration.
  Facts g = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  g.framework.env.value->emplace("TF_DETERMINISTIC_OPS", "1");
  v = run_rule("l3.framework.cublas_workspace", g);
  EXPECT_EQ(v[0].status, Status::warn);
}

TEST(LaunchBlocking, LeftOnWarnsFromEitherSource) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  EXPECT_EQ(run_rule("l3.framework.launch_blocking", f)[0].status, Status::pass);
  f.framework.env.value->emplace("CUDA_LAUNCH_BLOCKING", "1");
  EXPECT_EQ(run_rule("l3.framework.launch_blocking", f)[0].status, Status::warn);
  // The target process's environment wins over the probe's.
  f.host.process.environ = Fact<std::map<std::string, std::string>>::of({{"CUDA_LAUNCH_BLOCKING", "0"}}, "/proc/42/environ");
  EXPECT_EQ(run_rule("l3.framework.launch_blocking", f)[0].status, Status::pass);
  Facts none;
  EXPECT_EQ(run_rule("l3.framework.launch_blocking", none)[0].status, Status::skip);
}

TEST(ReleaseAge, OffByDefaultThenYoungReleasesAreInfo) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");  // torch 2.5 (2024-10-17), CUDA 12.4 (2024-03)
  with_gpus(f, "550.90.12", 12040);
  f.meta.started_at = "2025-01-15T00:00:00Z";
  EXPECT_TRUE(run_rule("l3.framework.release_age", f).empty());
  Thresholds th;
  th.set("framework.release_age_check", 1);
  auto v = run_rule("l3.framework.release_age", f, th);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(subject(v, "PyTorch 2.5.1+cu124")->status, Status::info);
  EXPECT_EQ(subject(v, "PyTorch 2.5.1+cu124")->args.at("months"), "2");
  EXPECT_EQ(subject(v, "CUDA 12.4")->status, Status::pass);
  EXPECT_EQ(subject(v, "NVIDIA driver 550.90.12")->status, Status::pass);
  f.meta.started_at = "2026-11-29T00:00:00Z";
  v = run_rule("l3.framework.release_age", f, th);
  EXPECT_EQ(subject(v, "PyTorch 2.5.1+cu124")->status, Status::pass);
}

}  // namespace
}  // namespace plumb
