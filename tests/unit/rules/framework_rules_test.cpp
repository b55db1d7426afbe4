// Framework-layer rules: a passing and a failing case each, built from probe answers and GPU facts.
#include <gtest/gtest.h>

#include "../../test_util.h"
#include "collect/python_probe.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "rules/framework_common.h"

namespace plumb {
namespace {

std::vector<Finding> judge_framework(const std::string& id, const Facts& f, const Thresholds& th = Thresholds()) {
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

// GPU layer facts as the NVML collector fills them: 8 GPUs, driver and its CUDA version.
void with_gpus(Facts& f, const std::string& driver, int cuda) {
  f.gpu.collected = true;
  f.gpu.driver_version = Fact<std::string>::of(driver, "nvmlSystemGetDriverVersion");
  f.gpu.cuda_driver_version = Fact<int>::of(cuda, "nvmlSystemGetCudaDriverVersion");
  for (int i = 0; i < 8; ++i) {
    GpuDevice d;
    d.uuid = "GPU-" + std::to_string(i);
    d.bus_id = "0000:1" + std::to_string(i) + ":00.0";
    d.name = "NVIDIA H100 80GB HBM3";
    f.gpu.devices.push_back(d);
  }
}

TEST(CudaUnavailable, DebianCpuOnlyTorchWithoutGpuIsInfoAndSaysWhy) {
  Facts f = with_probe("debian12-python3-torch-1.13-cpu.txt");
  auto v = judge_framework("l3.framework.cuda_unavailable", f);
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
  auto v = judge_framework("l3.framework.cuda_unavailable", f);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, Status::fail);
  EXPECT_EQ(v[0].variant, "cpu_only");
}

TEST(CudaUnavailable, DriverTooOldIsNamed) {
  Facts f = with_probe("gpu-driver-too-old-torch2.5-cu124.txt");
  with_gpus(f, "470.82.01", 11040);
  auto v = judge_framework("l3.framework.cuda_unavailable", f);
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
  auto v = judge_framework("l3.framework.cuda_unavailable", f);
  EXPECT_EQ(v[0].status, Status::fail);
  EXPECT_EQ(v[0].variant, "visible_devices");
}

TEST(CudaUnavailable, PassesWhenCudaWorks) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  with_gpus(f, "550.90.12", 12040);
  auto v = judge_framework("l3.framework.cuda_unavailable", f);
  EXPECT_EQ(v[0].status, Status::pass);
  EXPECT_EQ(v[0].args.at("count"), "8");
}

TEST(CudaUnavailable, SkipsWithoutTorch) {
  Facts f = with_probe("pyenv-3.11-no-packages.txt");
  auto v = judge_framework("l3.framework.cuda_unavailable", f);
  EXPECT_EQ(v[0].status, Status::skip);
  EXPECT_NE(v[0].args.at("reason").find("not installed"), std::string::npos);
}

TEST(DriverTooOld, NewerMajorFailsSameMajorWarnsOlderPasses) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");  // torch CUDA 12.4, TF CUDA 12.2
  with_gpus(f, "470.82.01", 11040);
  auto v = judge_framework("l3.framework.cuda_driver_too_old", f);
  ASSERT_NE(subject(v, "torch"), nullptr);
  EXPECT_EQ(subject(v, "torch")->status, Status::fail);
  EXPECT_EQ(subject(v, "torch")->variant, "major");
  ASSERT_NE(subject(v, "tensorflow"), nullptr);

  Facts g = f;
  g.gpu.driver_version.value = "535.161.08";
  g.gpu.cuda_driver_version.value = 12020;  // CUDA 12.2: torch 12.4 runs by minor-version compatibility
  v = judge_framework("l3.framework.cuda_driver_too_old", g);
  EXPECT_EQ(subject(v, "torch")->status, Status::warn);
  EXPECT_EQ(subject(v, "torch")->variant, "minor_compat");
  EXPECT_EQ(subject(v, "tensorflow")->status, Status::pass);

  g.gpu.driver_version.value = "520.61.05";  // below the 12.x family minimum 525
  v = judge_framework("l3.framework.cuda_driver_too_old", g);
  EXPECT_EQ(subject(v, "torch")->variant, "below_family");

  g.gpu.driver_version.value = "550.90.12";
  g.gpu.cuda_driver_version.value = 12040;
  v = judge_framework("l3.framework.cuda_driver_too_old", g);
  EXPECT_EQ(subject(v, "torch")->status, Status::pass);
}

TEST(DriverTooOld, SkipsWithoutDriverFactsOrForCpuBuilds) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  auto v = judge_framework("l3.framework.cuda_driver_too_old", f);
  EXPECT_EQ(subject(v, "torch")->status, Status::skip);
  Facts c = with_probe("debian12-python3-torch-1.13-cpu.txt");
  v = judge_framework("l3.framework.cuda_driver_too_old", c);
  EXPECT_EQ(v[0].status, Status::skip);
  EXPECT_NE(v[0].args.at("reason").find("not a CUDA build"), std::string::npos);
}

// The GPU layer's CUDA search after reading /proc/4242/maps: one mapped copy per (lib, version, path).
void with_maps(Facts& f, std::vector<std::tuple<std::string, std::string, std::string>> mapped) {
  f.gpu.cuda.collected = true;
  f.gpu.cuda.pid = 4242;
  f.gpu.cuda.pid_maps_read = true;
  for (auto& [lib, version, path] : mapped) {
    CudaLibCopy c;
    c.lib = lib;
    c.path = c.real_path = path;
    c.origin = "process maps";
    c.mapped = true;
    if (version.empty()) {
      c.version = Fact<std::string>::none("no version in the file name and the library was not loaded", path);
    } else {
      c.version = Fact<std::string>::of(version, "pip metadata next to " + path);
    }
    f.gpu.cuda.copies.push_back(c);
  }
  // An installed but unmapped copy never counts as loaded.
  CudaLibCopy other;
  other.lib = "nccl";
  other.path = other.real_path = "/usr/lib/x86_64-linux-gnu/libnccl.so.2.15.5";
  other.origin = "ld.so.cache";
  other.version = Fact<std::string>::of("2.15.5", "file name");
  f.gpu.cuda.copies.push_back(other);
}

const std::string kSite = "/opt/venv/lib/python3.11/site-packages/nvidia/";

TEST(LibraryMismatch, WithoutPidCudnnUsesTheProbeAndNcclSkips) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  f.gpu.cuda.collected = true;
  f.gpu.cuda.pid_maps_why = "no --pid given";
  auto v = judge_framework("l3.framework.library_mismatch", f);
  EXPECT_EQ(subject(v, "cudnn")->status, Status::pass);
  EXPECT_EQ(subject(v, "cudnn")->args.at("where"), "in the probe's interpreter /usr/bin/python3");
  EXPECT_EQ(subject(v, "nccl")->status, Status::skip);
  EXPECT_NE(subject(v, "nccl")->args.at("reason").find("no --pid given"), std::string::npos);
  f.framework.torch.value->cudnn_runtime = "8.9.7";
  v = judge_framework("l3.framework.library_mismatch", f);
  EXPECT_EQ(subject(v, "cudnn")->status, Status::warn);
  Facts none = with_probe("gpu-8x-h100-torch2.5-cu124.txt");  // collect.cuda did not run at all
  v = judge_framework("l3.framework.library_mismatch", none);
  EXPECT_NE(subject(v, "nccl")->args.at("reason").find("collect.cuda"), std::string::npos);
}

TEST(LibraryMismatch, TorchBuiltWithCudnn89ButTheJobMapsCudnn9Warns) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  f.framework.torch.value->cudnn_compiled = "8.9.2";
  f.framework.torch.value->cudnn_runtime = "8.9.2";  // the probe's own process agrees: only the job differs
  with_maps(f, {{"cudnn", "9.1.0.70", kSite + "cudnn/lib/libcudnn.so.9"}, {"nccl", "2.21.5", kSite + "nccl/lib/libnccl.so.2"}});
  auto v = judge_framework("l3.framework.library_mismatch", f);
  const Finding* c = subject(v, "cudnn");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, Status::warn);
  EXPECT_EQ(c->args.at("loaded"), "9.1.0.70");
  EXPECT_EQ(c->args.at("where"), kSite + "cudnn/lib/libcudnn.so.9");
  std::string msg = finding_message(*c, Lang::en);
  EXPECT_NE(msg.find("PyTorch was built with 8.9.2 but 9.1.0.70 is loaded"), std::string::npos) << msg;
  EXPECT_NE(finding_message(*c, Lang::zh).find("实际加载的是 9.1.0.70"), std::string::npos);
  bool maps_evidence = false;
  for (const auto& e : c->evidence) {
    if (e.what == "cuDNN mapped by pid 4242") {
      maps_evidence = true;
      EXPECT_EQ(e.source, "/proc/4242/maps; version: pip metadata next to " + kSite + "cudnn/lib/libcudnn.so.9");
    }
  }
  EXPECT_TRUE(maps_evidence);
  EXPECT_EQ(subject(v, "nccl")->status, Status::pass);
}

TEST(LibraryMismatch, TorchNccl218ButTheJobMapsNccl221Warns) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  f.framework.torch.value->nccl = "2.18.1";
  with_maps(f, {{"cudnn", "9.1.0.70", kSite + "cudnn/lib/libcudnn.so.9"}, {"nccl", "2.21.5", kSite + "nccl/lib/libnccl.so.2"}});
  auto v = judge_framework("l3.framework.library_mismatch", f);
  EXPECT_EQ(subject(v, "cudnn")->status, Status::pass);
  const Finding* n = subject(v, "nccl");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->status, Status::warn);
  EXPECT_EQ(n->args.at("built"), "2.18.1");
  EXPECT_EQ(n->args.at("loaded"), "2.21.5");
  EXPECT_EQ(n->args.at("pid"), "4242");
  // A patch release apart is the same NCCL for this rule (major.minor).
  f.framework.torch.value->nccl = "2.21.3";
  v = judge_framework("l3.framework.library_mismatch", f);
  EXPECT_EQ(subject(v, "nccl")->status, Status::pass);
  EXPECT_NE(finding_message(*subject(v, "nccl"), Lang::en).find("NCCL 2.21.5 (" + kSite + "nccl/lib/libnccl.so.2) matches"),
            std::string::npos);
}

TEST(LibraryMismatch, TwoMappedCopiesTheDifferingOneDecides) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  with_maps(f, {{"nccl", "2.21.5", kSite + "nccl/lib/libnccl.so.2"}, {"nccl", "2.18.3", "/usr/local/nccl/lib/libnccl.so.2.18.3"}});
  auto v = judge_framework("l3.framework.library_mismatch", f);
  EXPECT_EQ(subject(v, "nccl")->status, Status::warn);
  EXPECT_EQ(subject(v, "nccl")->args.at("loaded"), "2.18.3");
}

TEST(LibraryMismatch, MajorOnlyIsInfoUnknownVersionOrNothingMappedSkips) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  Facts g = f, h = f;
  with_maps(f, {{"nccl", "2", "/usr/lib/libnccl.so.2"}});
  auto v = judge_framework("l3.framework.library_mismatch", f);
  EXPECT_EQ(subject(v, "nccl")->status, Status::info);
  EXPECT_EQ(subject(v, "nccl")->variant, "partial");
  with_maps(g, {{"nccl", "", "/usr/lib/libnccl.so"}});
  v = judge_framework("l3.framework.library_mismatch", g);
  EXPECT_EQ(subject(v, "nccl")->status, Status::skip);
  EXPECT_NE(subject(v, "nccl")->args.at("reason").find("/usr/lib/libnccl.so: no version"), std::string::npos);
  with_maps(h, {{"cudnn", "9.1.0", kSite + "cudnn/lib/libcudnn.so.9"}});
  v = judge_framework("l3.framework.library_mismatch", h);
  EXPECT_EQ(subject(v, "nccl")->status, Status::skip);
  EXPECT_NE(subject(v, "nccl")->args.at("reason").find("pid 4242 maps no libnccl"), std::string::npos);
}

TEST(LibraryMismatch, WithoutPidTheProbesOwnMapsDecide) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  f.gpu.cuda.collected = true;
  f.gpu.cuda.pid_maps_why = "no --pid given";
  f.framework.torch.value->mapped_libs = {{"nccl", "/usr/local/cuda-12.4/lib64/libnccl.so.2.18.3", "2.18.3", "", false},
                                          {"cudnn", kSite + "cudnn/lib/libcudnn.so.9", "9.1.0", "", false}};
  auto v = judge_framework("l3.framework.library_mismatch", f);
  const Finding* n = subject(v, "nccl");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->status, Status::warn);
  EXPECT_EQ(n->args.at("where"), "/usr/local/cuda-12.4/lib64/libnccl.so.2.18.3 in the probe's interpreter");
  EXPECT_EQ(subject(v, "cudnn")->status, Status::pass);
  // With --pid the job's maps win over the probe's.
  with_maps(f, {{"nccl", "2.21.5", kSite + "nccl/lib/libnccl.so.2"}});
  v = judge_framework("l3.framework.library_mismatch", f);
  EXPECT_EQ(subject(v, "nccl")->status, Status::pass);
}

TEST(LibraryMismatch, SameVersionComparesTheCommonComponents) {
  EXPECT_EQ(same_version("9.1.0", "9.1.0.70", 2), true);
  EXPECT_EQ(same_version("8.9.2", "9", 2), false);
  EXPECT_EQ(same_version("9.1.0", "9", 2), true);
  EXPECT_EQ(same_version("2.18.1", "2.21.5", 2), false);
  EXPECT_EQ(same_version("2.21.1", "2.21.5", 3), false);
  EXPECT_EQ(same_version("", "2.21.5", 2), std::nullopt);
  EXPECT_EQ(same_version("x.1", "2.21.5", 2), std::nullopt);
}

TEST(CudnnBenchmark, OffIsInfoOnIsPass) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  auto v = judge_framework("l3.framework.cudnn_benchmark", f);
  EXPECT_EQ(v[0].status, Status::info);
  f.framework.torch.value->cudnn_benchmark = true;
  v = judge_framework("l3.framework.cudnn_benchmark", f);
  EXPECT_EQ(v[0].status, Status::pass);
}

TEST(CublasWorkspace, DeterminismWithoutWorkspaceWarns) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  auto v = judge_framework("l3.framework.cublas_workspace", f);
  EXPECT_EQ(v[0].status, Status::pass);
  EXPECT_EQ(v[0].variant, "not_requested");

  Thresholds th;
  th.set("framework.require_determinism", 1);
  v = judge_framework("l3.framework.cublas_workspace", f, th);
  EXPECT_EQ(v[0].status, Status::warn);

  f.host.process.environ = Fact<std::map<std::string, std::string>>::of({{"CUBLAS_WORKSPACE_CONFIG", ":4096:8"}}, "/proc/42/environ");
  v = judge_framework("l3.framework.cublas_workspace", f, th);
  EXPECT_EQ(v[0].status, Status::pass);
  EXPECT_EQ(v[0].evidence.back().source, "/proc/42/environ");

  f.host.process.environ.value->at("CUBLAS_WORKSPACE_CONFIG") = "4096";
  v = judge_framework("l3.framework.cublas_workspace", f, th);
  EXPECT_EQ(v[0].variant, "invalid");
  // The form is (":" digits ":" digits)+, any number of times.
  for (const char* good : {":16:8", ":4096:8:16:8", ":0:0"}) {
    f.host.process.environ.value->at("CUBLAS_WORKSPACE_CONFIG") = good;
    EXPECT_EQ(judge_framework("l3.framework.cublas_workspace", f, th)[0].status, Status::pass) << good;
  }
  for (const char* bad : {"", ":", "::", ":4096", ":4096:", ":4096:8:", ":4096:8:16", "4096:8", ":4096:8 ", ":40x6:8",
                          ":4096::8"}) {
    f.host.process.environ.value->at("CUBLAS_WORKSPACE_CONFIG") = bad;
    EXPECT_EQ(judge_framework("l3.framework.cublas_workspace", f, th)[0].variant, "invalid") << bad;
  }
  // A value of 20,000 pairs (the kernel allows 128 KiB per variable): std::regex overflowed the
  // stack on it.
  std::string many;
  for (int i = 0; i < 20000; ++i) many += ":4096:8";
  f.host.process.environ.value->at("CUBLAS_WORKSPACE_CONFIG") = many;
  EXPECT_EQ(judge_framework("l3.framework.cublas_workspace", f, th)[0].status, Status::pass);
  f.host.process.environ.value->at("CUBLAS_WORKSPACE_CONFIG") = many + ":";
  EXPECT_EQ(judge_framework("l3.framework.cublas_workspace", f, th)[0].variant, "invalid");

  // Requested by the environment (TensorFlow's switch) rather than by configuration.
  Facts g = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  g.framework.env.value->emplace("TF_DETERMINISTIC_OPS", "1");
  v = judge_framework("l3.framework.cublas_workspace", g);
  EXPECT_EQ(v[0].status, Status::warn);
}

TEST(LaunchBlocking, LeftOnWarnsFromEitherSource) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  EXPECT_EQ(judge_framework("l3.framework.launch_blocking", f)[0].status, Status::pass);
  f.framework.env.value->emplace("CUDA_LAUNCH_BLOCKING", "1");
  EXPECT_EQ(judge_framework("l3.framework.launch_blocking", f)[0].status, Status::warn);
  // The target process's environment wins over the probe's.
  f.host.process.environ = Fact<std::map<std::string, std::string>>::of({{"CUDA_LAUNCH_BLOCKING", "0"}}, "/proc/42/environ");
  EXPECT_EQ(judge_framework("l3.framework.launch_blocking", f)[0].status, Status::pass);
  Facts none;
  EXPECT_EQ(judge_framework("l3.framework.launch_blocking", none)[0].status, Status::skip);
}

TEST(NoMemoryCaching, AnyValueTurnsTheCacheOff) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");
  EXPECT_EQ(judge_framework("l3.framework.no_memory_caching", f)[0].status, Status::pass);
  f.framework.env.value->emplace("PYTORCH_NO_CUDA_MEMORY_CACHING", "1");
  auto v = judge_framework("l3.framework.no_memory_caching", f);
  EXPECT_EQ(v[0].status, Status::warn);
  EXPECT_EQ(v[0].variant, "");
  // PyTorch only asks whether the variable exists: "0" still disables the cache, and says so.
  f.host.process.environ = Fact<std::map<std::string, std::string>>::of({{"PYTORCH_NO_CUDA_MEMORY_CACHING", "0"}},
                                                                          "/proc/42/environ");
  v = judge_framework("l3.framework.no_memory_caching", f);
  EXPECT_EQ(v[0].status, Status::warn);
  EXPECT_EQ(v[0].variant, "zero");
  EXPECT_NE(finding_message(v[0], Lang::en).find("even 0"), std::string::npos);
  EXPECT_EQ(v[0].evidence[0].source, "/proc/42/environ");
  Facts none;
  EXPECT_EQ(judge_framework("l3.framework.no_memory_caching", none)[0].status, Status::skip);
}

TEST(ReleaseAge, OffByDefaultThenYoungReleasesAreInfo) {
  Facts f = with_probe("gpu-8x-h100-torch2.5-cu124.txt");  // torch 2.5 (2024-10-17), CUDA 12.4 (2024-03)
  with_gpus(f, "550.90.12", 12040);
  f.meta.started_at = "2025-01-15T00:00:00Z";
  EXPECT_TRUE(judge_framework("l3.framework.release_age", f).empty());
  Thresholds th;
  th.set("framework.release_age_check", 1);
  auto v = judge_framework("l3.framework.release_age", f, th);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(subject(v, "PyTorch 2.5.1+cu124")->status, Status::info);
  EXPECT_EQ(subject(v, "PyTorch 2.5.1+cu124")->args.at("months"), "2");
  EXPECT_EQ(subject(v, "CUDA 12.4")->status, Status::pass);
  EXPECT_EQ(subject(v, "NVIDIA driver 550.90.12")->status, Status::pass);
  f.meta.started_at = "2026-11-29T00:00:00Z";
  v = judge_framework("l3.framework.release_age", f, th);
  EXPECT_EQ(subject(v, "PyTorch 2.5.1+cu124")->status, Status::pass);
}

}  // namespace
}  // namespace plumb
