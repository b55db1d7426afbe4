// Framework-layer rules about the CUDA stack: is CUDA available to the framework, is the
// framework's CUDA newer than the driver supports, do its cuDNN/NCCL copies agree.
#include <string>
#include <vector>

#include "core/catalog.h"
#include "core/knowledge/cuda_compat.h"
#include "core/registry.h"
#include "core/text.h"
#include "rules/framework_common.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr const char* kUnavailable = "l3.framework.cuda_unavailable";
constexpr const char* kDriverOld = "l3.framework.cuda_driver_too_old";
constexpr const char* kLibMismatch = "l3.framework.library_mismatch";

std::string py_of(const Facts& f) {
  return f.framework.python.has() && !f.framework.python->executable.empty() ? f.framework.python->executable
                                                                             : std::string("python3");
}

std::string opt_or_none(const std::optional<std::string>& v) { return v ? *v : "None"; }

// The driver's supported CUDA version, when the GPU layer read it.
std::optional<CudaVersion> driver_cuda(const Facts& f) {
  if (!f.gpu.cuda_driver_version.has() || *f.gpu.cuda_driver_version <= 0) return std::nullopt;
  return decode_cuda_int(*f.gpu.cuda_driver_version);
}

bool newer(const CudaVersion& a, const CudaVersion& b) {
  return a.major != b.major ? a.major > b.major : a.minor > b.minor;
}

// What the GPU layer says about GPUs on this host, as one phrase for messages.
std::string gpu_state(const Facts& f) {
  const auto& g = f.gpu;
  if (!g.collected) return "GPU layer not collected";
  if (!g.unavailable.empty()) return g.unavailable;
  return std::to_string(g.devices.size()) + " NVIDIA GPU(s), driver " +
         (g.driver_version.has() ? *g.driver_version : "n/a (" + g.driver_version.why() + ")");
}

std::vector<Finding> judge_unavailable(const Facts& f, const Thresholds& /*th*/) {
  const auto& t = f.framework.torch;
  if (!t.has()) return {skipped(kUnavailable, "PyTorch: " + t.why())};
  Finding r;
  r.id = kUnavailable;
  r.subject = "torch";
  r.arg("version", t->version).arg("python", py_of(f)).arg("cuda", opt_or_none(t->cuda)).arg("gpu", gpu_state(f));
  r.add("torch.__version__", t->version, t.source);
  r.add("torch.version.cuda", opt_or_none(t->cuda), t.source);
  if (t->hip) r.add("torch.version.hip", *t->hip, t.source);
  r.add("torch.cuda.is_available()", t->cuda_available ? (*t->cuda_available ? "True" : "False") : "n/a", t.source);
  r.threshold = "torch.cuda.is_available() == True when GPUs and a driver are present";
  if (t->cuda_available.value_or(false)) {
    r.status = Status::pass;
    r.arg("count", std::to_string(t->device_count.value_or(0)));
    return {r};
  }
  if (!t->cuda_warning.empty()) r.add("torch warning", t->cuda_warning, t.source);
  bool gpus_present = f.gpu.collected && f.gpu.unavailable.empty() && !f.gpu.devices.empty();
  bool driver_present = f.gpu.driver_version.has();
  if (gpus_present) {
    r.add("NVIDIA GPUs", std::to_string(f.gpu.devices.size()) + " (" + f.gpu.devices.front().name + ")",
          "NVML");
  }
  if (driver_present) r.add("driver", *f.gpu.driver_version, f.gpu.driver_version.source);

  // The likely reason, most certain first.
  std::string reason;
  auto visible = job_env(f, "CUDA_VISIBLE_DEVICES");
  auto rt = t->cuda ? parse_cuda_version(*t->cuda) : std::nullopt;
  auto dc = driver_cuda(f);
  if (t->cpu_only()) {
    reason = "cpu_only";
  } else if (visible && (visible->value.empty() || visible->value == "-1" || visible->value == "NoDevFiles")) {
    reason = "visible_devices";
    r.add("CUDA_VISIBLE_DEVICES", "\"" + visible->value + "\"", visible->source);
  } else if ((rt && dc && newer(*rt, *dc)) || t->cuda_warning.find("too old") != std::string::npos) {
    reason = "driver_too_old";
    if (dc) {
      r.add("driver supports CUDA", to_string(*dc), f.gpu.cuda_driver_version.source);
      r.arg("driver_cuda", to_string(*dc));
    } else {
      r.arg("driver_cuda", "?");
    }
  } else {
    reason = "unknown";
    r.arg("warning", t->cuda_warning.empty() ? std::string("no warning") : t->cuda_warning);
  }
  if (gpus_present && driver_present) {
    r.status = Status::fail;
    r.variant = reason;
  } else {
    // No GPU (or no GPU facts): CUDA being unavailable is expected, but say why anyway.
    r.status = Status::info;
    r.variant = reason == "cpu_only" ? "nogpu_cpu_only" : "nogpu";
    r.arg("warning", t->cuda_warning.empty() ? std::string("no warning") : t->cuda_warning);
  }
  return {r};
}

std::optional<Finding> judge_one_driver(const Facts& f, const std::string& subject, const std::string& what,
                                        const std::string& cuda, const std::string& src) {
  Finding r;
  r.id = kDriverOld;
  r.subject = subject;
  auto rt = parse_cuda_version(cuda);
  if (!rt) return skipped(kDriverOld, subject + ": CUDA version '" + cuda + "' not understood", subject);
  auto dc = driver_cuda(f);
  if (!dc) return skipped(kDriverOld, "driver CUDA version: " + f.gpu.cuda_driver_version.why(), subject);
  r.add(what, cuda, src);
  r.add("driver supports CUDA", to_string(*dc), f.gpu.cuda_driver_version.source);
  if (f.gpu.driver_version.has()) r.add("driver", *f.gpu.driver_version, f.gpu.driver_version.source);
  r.arg("framework", subject).arg("cuda", to_string(*rt)).arg("driver_cuda", to_string(*dc));
  r.arg("driver", f.gpu.driver_version.has() ? *f.gpu.driver_version : "?");
  r.threshold = "framework CUDA <= driver CUDA (same major: minor-version compatibility)";
  if (!newer(*rt, *dc)) {
    r.status = Status::pass;
    return r;
  }
  if (rt->major > dc->major) {
    r.status = Status::fail;
    r.variant = "major";
    return r;
  }
  // The driver family's minimum for minor-version compatibility (core/knowledge/cuda_compat.h).
  const std::string floor = family_min_driver(rt->major);
  auto family = split(floor, '.');
  int min = static_cast<int>(parse_int(family.empty() ? std::string_view() : family[0]).value_or(0));
  int drv = 0;
  if (f.gpu.driver_version.has()) {
    auto parts = split(*f.gpu.driver_version, '.');
    drv = static_cast<int>(parse_int(parts.empty() ? std::string_view() : parts[0]).value_or(0));
  }
  r.arg("family_min", std::to_string(min));
  if (min > 0 && drv >= min) {
    r.status = Status::warn;
    r.variant = "minor_compat";
  } else {
    r.status = Status::fail;
    r.variant = "below_family";
  }
  return r;
}

std::vector<Finding> judge_driver(const Facts& f, const Thresholds& /*th*/) {
  std::vector<Finding> out;
  const auto& t = f.framework.torch;
  if (!t.has()) {
    out.push_back(skipped(kDriverOld, "PyTorch: " + t.why(), "torch"));
  } else if (t->cuda) {
    if (auto r = judge_one_driver(f, "torch", "torch.version.cuda", *t->cuda, t.source)) out.push_back(*r);
  } else {
    out.push_back(skipped(kDriverOld, "PyTorch " + t->version + " is not a CUDA build", "torch"));
  }
  const auto& tf = f.framework.tensorflow;
  if (tf.has() && tf->cuda && !tf->cuda->empty()) {
    if (auto r = judge_one_driver(f, "tensorflow", "tf.sysconfig cuda_version", *tf->cuda, tf.source)) {
      out.push_back(*r);
    }
  }
  return out;
}

// Dotted components in a version string ("9" -> 1, "2.21.5" -> 3).
std::size_t components(const std::string& v) { return v.empty() ? 0 : split(v, '.').size(); }

// One judgement of a library: what torch was built with vs the copies the job maps (or, for
// cuDNN without --pid, the copy the probe's interpreter loaded).
struct LibCheck {
  const char* lib;       // "cudnn" | "nccl"
  const char* label;     // "cuDNN" | "NCCL"
  std::string built;     // what torch was built with
  std::string built_src;
  std::optional<std::string> probe_loaded;  // cuDNN only: getRuntimeVersion() in the probe
};

Finding judge_lib(const Facts& f, const LibCheck& c) {
  const std::string src = f.framework.torch.source;
  Finding r;
  r.id = kLibMismatch;
  r.subject = c.lib;
  r.add(std::string(c.label) + " torch was built with", c.built, c.built_src);
  r.arg("lib", c.label).arg("built", c.built).arg("python", py_of(f));
  r.arg("pid", f.gpu.cuda.pid > 0 ? std::to_string(f.gpu.cuda.pid) : std::string("<pid>"));
  r.threshold = "loaded major.minor == built major.minor";
  std::string why;
  auto job = loaded_libraries(f, c.lib, why);
  auto probe_maps = probe_mapped_libraries(f, c.lib);
  const std::string pid = std::to_string(f.gpu.cuda.pid);
  // The copies to judge: versioned copies the job maps, else those the probe's interpreter maps,
  // else the copy torch reports loading in the probe (cuDNN).
  std::vector<std::pair<std::string, std::string>> loaded;  // version, where
  std::string unknown;
  auto take = [&](const std::vector<LoadedLibrary>& libs, const std::string& what, const std::string& suffix) {
    for (const auto& l : libs) {
      const std::string gone = l.deleted ? " (deleted from disk)" : "";
      r.add(what, (l.version.empty() ? "version unknown (" + l.version_why + ")" : l.version) + " at " + l.path + gone,
            l.source);
      if (l.version.empty()) {
        unknown = l.path + ": " + l.version_why;
      } else {
        loaded.emplace_back(l.version, concat(l.path, gone, suffix));
      }
    }
  };
  take(job, std::string(c.label) + " mapped by pid " + pid, "");
  if (job.empty()) {
    r.add(std::string(c.label) + " mapped by the job", "not known: " + why, "GPU layer (collect.cuda)");
    take(probe_maps, std::string(c.label) + " mapped by the probe's interpreter", " in the probe's interpreter");
  }
  if (c.probe_loaded) {
    r.add(std::string(c.label) + " loaded by the probe's interpreter", *c.probe_loaded, src);
    if (loaded.empty()) loaded.emplace_back(*c.probe_loaded, "in the probe's interpreter " + py_of(f));
  }
  if (loaded.empty()) {
    return skipped(kLibMismatch,
                   std::string(c.label) + " copy loaded by the job: " + (unknown.empty() ? why : unknown), c.lib);
  }
  // The first copy that differs decides; a copy known only by its major cannot prove a match.
  std::optional<std::size_t> partial;
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    const auto& [ver, where] = loaded[i];
    auto same = same_version(c.built, ver, 2);
    if (same && !*same) {
      r.arg("loaded", ver).arg("where", where);
      r.status = Status::warn;
      r.variant = "warn";
      return r;
    }
    if (!partial && (!same || components(ver) < 2 || components(c.built) < 2)) partial = i;
  }
  if (partial) {
    r.arg("loaded", loaded[*partial].first).arg("where", loaded[*partial].second);
    r.status = Status::info;
    r.variant = "partial";
    return r;
  }
  r.arg("loaded", loaded.front().first).arg("where", loaded.front().second);
  r.status = Status::pass;
  return r;
}

std::vector<Finding> judge_libraries(const Facts& f, const Thresholds& /*th*/) {
  const auto& t = f.framework.torch;
  if (!t.has()) return {skipped(kLibMismatch, "PyTorch: " + t.why())};
  if (t->cpu_only()) return {skipped(kLibMismatch, "PyTorch " + t->version + " is not a CUDA build: no cuDNN or NCCL")};
  std::vector<Finding> out;
  // cuDNN: torch._C._cudnn.getCompileVersion() vs the copy the job maps (or the probe loaded).
  if (t->cudnn_compiled) {
    out.push_back(judge_lib(f, {"cudnn", "cuDNN", *t->cudnn_compiled, t.source, t->cudnn_runtime}));
  } else {
    out.push_back(skipped(kLibMismatch, "cuDNN versions not reported by PyTorch " + t->version, "cudnn"));
  }
  // NCCL: torch.cuda.nccl.version() is the NCCL torch was compiled against (NCCL_MAJOR/MINOR/PATCH
  // of its headers), so only the job's mapped copy says what runs.
  if (t->nccl) {
    out.push_back(judge_lib(f, {"nccl", "NCCL", *t->nccl, t.source, std::nullopt}));
  } else {
    out.push_back(skipped(kLibMismatch, "NCCL version not reported by PyTorch " + t->version, "nccl"));
  }
  return out;
}



}  // namespace
void rules_framework_cuda_tables(Tables& t) {
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {kUnavailable, Layer::L3, Pillar::compute, Section::framework,
     {"CUDA available to the framework", "框架可用 CUDA"},
     {{"pass", {"CUDA is available to PyTorch {version}: {count} GPU(s).", "PyTorch {version} 可以使用 CUDA：{count} 块 GPU。"}},
      {"cpu_only",
       {"PyTorch {version} is a CPU-only build (torch.version.cuda is None), so CUDA is not available although this "
        "host has {gpu}.",
        "PyTorch {version} 是仅 CPU 版本（torch.version.cuda 为 None），因此虽然本机有 {gpu}，CUDA 仍不可用。"}},
      {"driver_too_old",
       {"CUDA is not available to PyTorch {version}: it was built for CUDA {cuda} but the driver supports only CUDA "
        "{driver_cuda} ({gpu}).",
        "PyTorch {version} 无法使用 CUDA：它基于 CUDA {cuda} 构建，但驱动只支持到 CUDA {driver_cuda}（{gpu}）。"}},
      {"visible_devices",
       {"CUDA is not available to PyTorch {version}: CUDA_VISIBLE_DEVICES hides every GPU ({gpu}).",
        "PyTorch {version} 无法使用 CUDA：CUDA_VISIBLE_DEVICES 屏蔽了所有 GPU（{gpu}）。"}},
      {"unknown",
       {"CUDA is not available to PyTorch {version} (CUDA {cuda} build) although this host has {gpu}; torch said: "
        "{warning}.",
        "本机有 {gpu}，但 PyTorch {version}（CUDA {cuda} 构建）无法使用 CUDA；torch 提示：{warning}。"}},
      {"nogpu_cpu_only",
       {"PyTorch {version} is a CPU-only build (torch.version.cuda is None): CUDA is not available to it whatever the "
        "driver. No usable NVIDIA GPU was seen here ({gpu}), so this is consistent; install a CUDA build before "
        "moving to a GPU machine.",
        "PyTorch {version} 是仅 CPU 版本（torch.version.cuda 为 None）：无论驱动如何都无法使用 CUDA。本机未发现可用的 "
        "NVIDIA GPU（{gpu}），两者一致；迁移到 GPU 机器前请安装 CUDA 版本。"}},
      {"nogpu",
       {"CUDA is not available to PyTorch {version} (CUDA {cuda} build); no usable NVIDIA GPU was seen here ({gpu}); "
        "torch said: {warning}.",
        "PyTorch {version}（CUDA {cuda} 构建）无法使用 CUDA；本机未发现可用的 NVIDIA GPU（{gpu}）；torch 提示：{warning}。"}}},
     {"CPU-only build: install the CUDA wheel that matches the driver (pip install torch --index-url "
      "https://download.pytorch.org/whl/cu<XY>). Driver too old: upgrade the driver or use a wheel built for an "
      "older CUDA. CUDA_VISIBLE_DEVICES empty or -1: unset it or list the GPUs.",
      "仅 CPU 版本：安装与驱动匹配的 CUDA 版 wheel（pip install torch --index-url "
      "https://download.pytorch.org/whl/cu<XY>）。驱动过旧：升级驱动，或改用基于更低 CUDA 版本构建的 wheel。"
      "CUDA_VISIBLE_DEVICES 为空或 -1：取消设置或列出要用的 GPU。"},
     "{python} -c \"import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())\"",
     {"the job runs on the GPUs instead of the CPU", "任务在 GPU 而非 CPU 上运行"},
     {}},
    {kDriverOld, Layer::L3, Pillar::compute, Section::framework,
     {"Framework CUDA vs driver", "框架 CUDA 与驱动版本"},
     {{"pass", {"{framework} was built for CUDA {cuda}; the driver supports CUDA {driver_cuda}.",
                "{framework} 基于 CUDA {cuda} 构建；驱动支持 CUDA {driver_cuda}。"}},
      {"major",
       {"{framework} was built for CUDA {cuda} but driver {driver} supports only CUDA {driver_cuda}: a newer major "
        "version needs a newer driver (expect cudaErrorInsufficientDriver, error 35).",
        "{framework} 基于 CUDA {cuda} 构建，但驱动 {driver} 只支持 CUDA {driver_cuda}：更高的主版本需要更新的驱动"
        "（会出现 cudaErrorInsufficientDriver，错误码 35）。"}},
      {"below_family",
       {"{framework} was built for CUDA {cuda} but driver {driver} supports only CUDA {driver_cuda} and is below "
        "{family_min}, the minimum for minor-version compatibility in this CUDA family.",
        "{framework} 基于 CUDA {cuda} 构建，但驱动 {driver} 只支持 CUDA {driver_cuda}，且低于该 CUDA 系列次版本兼容所需的最低驱动 "
        "{family_min}。"}},
      {"minor_compat",
       {"{framework} was built for CUDA {cuda}, newer than the driver's CUDA {driver_cuda}; it runs through "
        "minor-version compatibility, but PTX JIT (error 222) and newer APIs (error 36) can fail.",
        "{framework} 基于 CUDA {cuda} 构建，高于驱动支持的 CUDA {driver_cuda}；可借助次版本兼容运行，但 PTX JIT（错误 222）"
        "和较新的 API（错误 36）可能失败。"}}},
     {"Upgrade the NVIDIA driver to a branch that supports CUDA {cuda}, or install the framework build for CUDA "
      "{driver_cuda} or older.",
      "将 NVIDIA 驱动升级到支持 CUDA {cuda} 的分支，或安装基于 CUDA {driver_cuda} 或更低版本构建的框架。"},
     "nvidia-smi | head -4",
     {},
     {}},
    {kLibMismatch, Layer::L3, Pillar::compute, Section::framework,
     {"Framework cuDNN/NCCL vs the copies loaded", "框架 cuDNN/NCCL 与实际加载的版本"},
     {{"pass", {"{lib} {loaded} ({where}) matches the version PyTorch was built with ({built}).",
                "{lib} {loaded}（{where}）与 PyTorch 构建时的版本（{built}）一致。"}},
      {"warn",
       {"{lib}: PyTorch was built with {built} but {loaded} is loaded ({where}); results, kernel choices and "
        "collective behaviour can differ from the tested combination.",
        "{lib}：PyTorch 构建时使用 {built}，实际加载的是 {loaded}（{where}）；结果、内核选择和集合通信行为可能与经过测试的组合不同。"}},
      {"partial",
       {"{lib}: only the major version of the loaded copy is known ({loaded}, {where}); it agrees with {built}, "
        "the version PyTorch was built with, but the minor version could not be compared.",
        "{lib}：实际加载的副本只知道主版本（{loaded}，{where}），与 PyTorch 构建时的 {built} 一致，但无法比较次版本。"}}},
     {"Remove the other copy from LD_LIBRARY_PATH (or the image) so the wheel's own {lib} is loaded, or install the "
      "framework build made for {loaded}; restart the job if its copy was replaced on disk.",
      "从 LD_LIBRARY_PATH（或镜像）中移除另一份 {lib}，让 wheel 自带的版本被加载；或安装针对 {loaded} 构建的框架；"
      "若任务使用的副本已在磁盘上被替换，请重启任务。"},
     "{python} -c \"import torch; print(torch._C._cudnn.getCompileVersion(), torch.backends.cudnn.version(), "
     "torch.cuda.nccl.version())\"; grep -E 'libcudnn|libnccl' /proc/{pid}/maps",  // shown command, not a read under root
     {},
     {}},
};
});
  t.add_rule({kUnavailable, {"collect.python"}, judge_unavailable});
  t.add_rule({kDriverOld, {"collect.python"}, judge_driver});
  t.add_rule({kLibMismatch, {"collect.python", "collect.cuda"}, judge_libraries});
}

}  // namespace plumb
