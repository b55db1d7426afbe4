// CUDA stack rules: driver vs runtime compatibility (the minimum-driver table as data), toolkit vs
// runtime, conflicting cuDNN/NCCL copies, and the device query.
#include <algorithm>
#include <map>
#include <set>

#include "core/catalog.h"
#include "core/knowledge/cuda_compat.h"
#include "core/knowledge/cuda_version.h"
#include "rules/gpu_common.h"
#include "core/tables.h"

namespace plumb {

namespace {


// The runtimes judged: every distinct libcudart version found (frameworks bring their own).
std::map<int, std::string> runtimes(const CudaStackFacts& c) {
  std::map<int, std::string> out;  // raw version -> where
  for (const auto& x : c.copies) {
    if (x.lib != "cudart") continue;
    int raw = 0;
    if (x.raw_version.has()) {
      raw = *x.raw_version;
    } else if (x.version.has()) {
      auto n = parse_version_numbers(*x.version);
      if (n && !n->empty()) raw = (*n)[0] * 1000 + (n->size() > 1 ? (*n)[1] * 10 : 0);
    }
    // A bare major ("libcudart.so.12" with no metadata) cannot be judged on its minor.
    if (raw > 0 && x.version.has() && x.version->find('.') != std::string::npos) out.emplace(raw, x.real_path);
  }
  return out;
}

std::vector<Finding> judge_compat(const Facts& f, const Thresholds&) {
  const std::string id = "l3.gpu.cuda_driver_compat";
  const GpuFacts& g = f.gpu;
  int dcuda = 0;
  std::string dsrc;
  if (g.cuda_driver_version.has()) {
    dcuda = *g.cuda_driver_version;
    dsrc = g.cuda_driver_version.source;
  } else if (g.cuda.device_query.driver_version.has() && *g.cuda.device_query.driver_version > 0) {
    dcuda = *g.cuda.device_query.driver_version;
    dsrc = g.cuda.device_query.driver_version.source;
  }
  if (dcuda <= 0) {
    std::string why = gpu_rules::layer_missing(g);
    return {skipped(id, why.empty() ? g.cuda_driver_version.why() : why)};
  }
  if (!g.cuda.collected) return {skipped(id, "the CUDA library search did not run")};
  auto rts = runtimes(g.cuda);
  if (rts.empty()) return {skipped(id, "no libcudart with a known version found on the search path")};
  std::string driver = g.driver_version.has() ? *g.driver_version : std::string();
  std::vector<Finding> out;
  for (const auto& [rt, where] : rts) {
    CompatVerdict v = judge_cuda_compat(dcuda, driver, rt);
    Finding x;
    x.id = id;
    x.subject = "libcudart " + decode_cuda_version(rt);
    x.arg("runtime", decode_cuda_version(rt)).arg("driver_cuda", decode_cuda_version(dcuda));
    x.arg("driver", driver.empty() ? "?" : driver).arg("min_driver", v.min_driver.empty() ? "?" : v.min_driver);
    x.add("driver CUDA version", decode_cuda_version(dcuda), dsrc);
    if (!driver.empty()) x.add("driver version", driver, g.driver_version.source);
    x.add("runtime", decode_cuda_version(rt), where);
    x.threshold = "runtime <= driver CUDA (minor compat: driver >= " + family_min_driver(rt / 1000) + ")";
    switch (v.verdict) {
      case Compat::ok: x.status = Status::pass; break;
      case Compat::minor_compat: x.status = Status::warn; x.variant = "minor_compat"; break;
      case Compat::driver_too_old:
      case Compat::newer_major: x.status = Status::fail; break;
      case Compat::unknown: continue;
    }
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> judge_toolkit(const Facts& f, const Thresholds&) {
  const std::string id = "l3.gpu.toolkit_runtime";
  const CudaStackFacts& c = f.gpu.cuda;
  if (!c.collected) return {skipped(id, "the CUDA library search did not run")};
  if (!c.toolkit_version.has()) return {skipped(id, c.toolkit_version.why())};
  // The runtime a program would get: the loader-picked libcudart (newest when several majors).
  const CudaLibCopy* rt = nullptr;
  for (const auto& x : c.copies) {
    if (x.lib == "cudart" && x.loader_pick && x.version.has()) {
      if (rt == nullptr || compare_versions(parse_version_numbers(*x.version).value_or(std::vector<int>{}),
                                            parse_version_numbers(*rt->version).value_or(std::vector<int>{})) > 0) {
        rt = &x;
      }
    }
  }
  if (rt == nullptr) return {skipped(id, "no libcudart on the loader path")};
  auto tk = parse_version_numbers(*c.toolkit_version).value_or(std::vector<int>{});
  auto rv = parse_version_numbers(*rt->version).value_or(std::vector<int>{});
  Finding x;
  x.id = id;
  x.arg("toolkit", *c.toolkit_version).arg("runtime", *rt->version);
  x.add("toolkit", *c.toolkit_version, c.toolkit_version.source).add("runtime", *rt->version, rt->version.source);
  x.threshold = "same major.minor";
  if (tk.empty() || rv.empty()) return {skipped(id, "unreadable version")};
  if (tk[0] != rv[0]) {
    x.status = Status::warn;
  } else if (tk.size() > 1 && rv.size() > 1 && tk[1] != rv[1]) {
    x.status = Status::info;
  } else {
    x.status = Status::pass;
  }
  return {x};
}

std::vector<Finding> judge_duplicates(const Facts& f, const Thresholds&) {
  const std::string id = "l3.gpu.lib_duplicates";
  const CudaStackFacts& c = f.gpu.cuda;
  if (!c.collected) return {skipped(id, "the CUDA library search did not run")};
  std::vector<Finding> out;
  std::string summary;
  for (const char* lib : {"cudnn", "nccl"}) {
    std::set<std::string> versions;
    std::string pick = "none", all;
    int n = 0;
    Finding x;
    x.id = id;
    x.subject = lib;
    for (const auto& cp : c.copies) {
      if (cp.lib != lib) continue;
      ++n;
      std::string v = cp.version.has() ? *cp.version : "?";
      versions.insert(v);
      if (cp.loader_pick) pick = cp.real_path + " (" + v + ")";
      x.add(lib, v + (cp.loader_pick ? " (loader pick)" : "") + (cp.mapped ? " (mapped)" : ""), cp.real_path);
    }
    for (const auto& v : versions) all += (all.empty() ? "" : ", ") + v;
    if (versions.size() > 1) {
      x.status = Status::warn;
      x.arg("lib", lib).arg("versions", all).arg("pick", pick);
      x.threshold = "one version per library";
      out.push_back(std::move(x));
    } else {
      summary += (summary.empty() ? "" : "; ") + std::string(lib) + ": " +
                 (n == 0 ? std::string("none found") : std::to_string(n) + " cop" + (n == 1 ? "y" : "ies") + " of " + all);
    }
  }
  if (out.empty()) {
    Finding p;
    p.id = id;
    p.status = Status::pass;
    p.arg("detail", summary);
    out.push_back(std::move(p));
  }
  return out;
}

// The kernel module and the user-space driver are one package: after an upgrade without a reboot
// (or a container whose libcuda came from another host) they differ, and NVML and CUDA refuse to
// start ("Driver/library version mismatch", NVML_ERROR_LIB_RM_VERSION_MISMATCH in nvml.h).
bool driver_like_version(const std::string& v) {
  std::size_t dot = v.find('.');
  return dot != std::string::npos && dot >= 3 && std::all_of(v.begin(), v.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

std::vector<Finding> judge_module_version(const Facts& f, const Thresholds&) {
  const std::string id = "l3.gpu.driver_module_version";
  const CudaStackFacts& c = f.gpu.cuda;
  if (!c.collected) return {skipped(id, "the CUDA library search did not run")};
  if (!c.kernel_module_version.has()) return {skipped(id, "no NVIDIA kernel module loaded: " + c.kernel_module_version.why())};
  const std::string& mod = *c.kernel_module_version;
  Finding x;
  x.id = id;
  x.arg("module", mod);
  x.add("kernel module", mod, c.kernel_module_version.source);
  x.threshold = "libcuda version = kernel module version";
  std::string picked;
  std::vector<std::string> others;
  int n = 0;
  for (const auto& cp : c.copies) {
    if (cp.lib != "cuda" || !cp.version.has() || !driver_like_version(*cp.version)) continue;
    ++n;
    x.add("libcuda", *cp.version + (cp.loader_pick ? " (loader pick)" : ""), cp.real_path);
    if (*cp.version == mod) continue;
    if (cp.loader_pick) {
      picked = cp.real_path + " (" + *cp.version + ")";
    } else {
      others.push_back(cp.real_path + " (" + *cp.version + ")");
    }
  }
  if (n == 0) return {skipped(id, "no libcuda.so.<driver version> on the loader path")};
  if (!picked.empty()) {
    x.status = Status::fail;
    x.arg("lib", picked);
  } else if (!others.empty()) {
    x.status = Status::warn;
    x.variant = "other_copy";
    x.arg("lib", join(others, ", "));
  } else {
    x.status = Status::pass;
  }
  return {x};
}

std::vector<Finding> judge_fabric_manager(const Facts& f, const Thresholds&) {
  const std::string id = "l3.gpu.fabric_manager";
  const CudaStackFacts& c = f.gpu.cuda;
  if (!c.collected) return {skipped(id, "the CUDA library search did not run")};
  if (!c.nvswitches.has()) return {skipped(id, c.nvswitches.why())};
  Finding x;
  x.id = id;
  const auto& sw = *c.nvswitches;
  if (sw.empty()) {
    x.status = Status::pass;
    x.variant = "no_nvswitch";
    x.add("NVSwitch", "0", c.nvswitches.source);
    return {x};
  }
  x.arg("count", std::to_string(sw.size())).arg("switches", join(sw, ", "));
  x.add("NVSwitch", join(sw, ", "), c.nvswitches.source);
  x.threshold = "nv-fabricmanager running";
  if (!c.fabricmanager_running.has()) return {skipped(id, c.fabricmanager_running.why())};
  x.add("nv-fabricmanager", *c.fabricmanager_running ? "running" : "not running", c.fabricmanager_running.source);
  x.status = *c.fabricmanager_running ? Status::pass : Status::fail;
  return {x};
}

std::vector<Finding> judge_device_query(const Facts& f, const Thresholds&) {
  const std::string id = "l3.gpu.device_query";
  const GpuFacts& g = f.gpu;
  const CudaDeviceQuery& q = g.cuda.device_query;
  if (!g.cuda.collected || q.status == "not_run") return {skipped(id, "device query not run: " + q.detail)};
  bool gpus_present = g.collected && g.unavailable.empty() && !g.devices.empty();
  Finding x;
  x.id = id;
  x.arg("status", q.status).arg("detail", q.detail);
  x.add("device query", q.status + (q.detail.empty() ? "" : ": " + q.detail), q.library);
  for (const auto& d : q.devices) x.add("device", d, q.library);
  x.threshold = "PASS";
  if (q.status == "pass") {
    x.status = Status::pass;
    x.arg("count", std::to_string(q.devices.size()));
    if (!q.untested.empty()) {
      // A GPU busy with another process's job, or one whose compute mode forbids a context, is
      // only enumerated: the pass says so, and how to try it anyway.
      x.variant = q.contexts_tested > 0 ? "partly" : "enumerated";
      x.arg("tested", std::to_string(q.contexts_tested)).arg("untested", join(q.untested, "; "));
      x.add("GPUs given a context",
            concat(std::to_string(q.contexts_tested), " of ", std::to_string(q.devices.size()), " (--cuda-context ",
                   q.context_mode, ")"),
            q.library);
    }
    return {x};
  }
  // Without a driver and without GPUs, "no driver" is the expected answer, not a defect.
  if (!gpus_present && (q.status == "no_driver" || q.status == "stub_library" || q.status == "insufficient_driver")) {
    return {skipped(id, "no NVIDIA GPU and driver: " + q.detail)};
  }
  x.status = Status::fail;
  if (q.status == "stub_library" || q.status == "insufficient_driver") x.variant = q.status;
  return {x};
}


}  // namespace
void rules_gpu_cuda_tables(Tables& t) {
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {"l3.gpu.cuda_driver_compat", Layer::L3, Pillar::platform, Section::gpu,
     {"Driver supports the CUDA runtime", "驱动支持 CUDA 运行时版本"},
     {{"pass", {"driver supports CUDA {driver_cuda}, runtime {runtime} fits", "驱动支持 CUDA {driver_cuda}，运行时 {runtime} 可用"}},
      {"minor_compat", {"runtime {runtime} is newer than the driver's CUDA {driver_cuda}: runs only through minor-version "
                        "compatibility (PTX JIT and newer APIs may fail)",
                        "运行时 {runtime} 高于驱动支持的 CUDA {driver_cuda}：仅靠小版本兼容运行（PTX JIT 与新 API 可能失败）"}},
      {"fail", {"runtime {runtime} needs a newer driver than {driver} (CUDA {driver_cuda}): expect "
                "cudaErrorInsufficientDriver (35)",
                "运行时 {runtime} 需要比 {driver}（CUDA {driver_cuda}）更新的驱动：会出现 cudaErrorInsufficientDriver (35)"}}},
     {"Upgrade the NVIDIA driver to {min_driver} or newer (the CUDA {runtime} release's minimum), or install a "
      "framework build for CUDA {driver_cuda}; on datacenter GPUs the cuda-compat package can bridge a newer major.",
      "将 NVIDIA 驱动升级到 {min_driver} 或更新（CUDA {runtime} 的最低要求），或安装面向 CUDA {driver_cuda} 的框架版本；"
      "数据中心 GPU 可用 cuda-compat 包跨大版本兼容。"},
     "nvidia-smi | head -4; python -c 'import torch; print(torch.version.cuda, torch.cuda.is_available())'",
     {},
     {}},
    {"l3.gpu.toolkit_runtime", Layer::L3, Pillar::platform, Section::gpu,
     {"CUDA toolkit (nvcc) matches the runtime", "CUDA 工具包（nvcc）与运行时一致"},
     {{"pass", {"toolkit {toolkit} matches runtime {runtime}", "工具包 {toolkit} 与运行时 {runtime} 一致"}},
      {"info", {"toolkit {toolkit} differs from runtime {runtime} in the minor version", "工具包 {toolkit} 与运行时 {runtime} 小版本不同"}},
      {"warn", {"toolkit {toolkit} and runtime {runtime} have different major versions: CUDA extensions built here will "
                "not load",
                "工具包 {toolkit} 与运行时 {runtime} 大版本不同：在此编译的 CUDA 扩展将无法加载"}}},
     {"Building extensions (apex, flash-attn, custom ops) needs nvcc of the framework's CUDA major: install that "
      "toolkit and point CUDA_HOME at it.",
      "编译扩展（apex、flash-attn、自定义算子）需要与框架 CUDA 大版本一致的 nvcc：安装对应工具包并将 CUDA_HOME 指向它。"},
     "nvcc --version; python -c 'import torch; print(torch.version.cuda)'",
     {},
     {}},
    {"l3.gpu.lib_duplicates", Layer::L3, Pillar::platform, Section::gpu,
     {"One version of cuDNN and NCCL on the search path", "搜索路径上 cuDNN 与 NCCL 版本唯一"},
     {{"pass", {"{detail}", "{detail}"}},
      {"warn", {"{lib} copies with different versions: {versions}; the loader picks {pick}",
                "{lib} 存在多个不同版本：{versions}；加载器会选 {pick}"}}},
     {"Keep one copy per library on LD_LIBRARY_PATH / ld.so.conf, or make sure the framework's RPATH wins; mixed "
      "copies cause symbol errors and silent fallbacks.",
      "LD_LIBRARY_PATH / ld.so.conf 中每个库只保留一份，或确保框架的 RPATH 优先；混用多个版本会导致符号错误或静默回退。"},
     "ldconfig -p | grep -E 'libcudnn.so|libnccl.so'",
     {},
     {}},
    {"l3.gpu.driver_module_version", Layer::L3, Pillar::platform, Section::gpu,
     {"NVIDIA kernel module and user-space driver are one version", "NVIDIA 内核模块与用户态驱动版本一致"},
     {{"pass", {"the kernel module and libcuda are both {module}", "内核模块与 libcuda 均为 {module}"}},
      {"fail", {"the kernel module is {module} but the loader picks {lib}: NVML and CUDA fail with \"Driver/library "
                "version mismatch\" until they agree",
                "内核模块为 {module}，而加载器选用 {lib}：在两者一致之前，NVML 与 CUDA 会报 \"Driver/library version "
                "mismatch\""}},
      {"other_copy", {"the kernel module and the loader's libcuda are {module}; another copy on the search path has "
                      "another version: {lib}",
                      "内核模块与加载器选用的 libcuda 均为 {module}；搜索路径上另有其他版本的副本：{lib}"}}},
     {"After a driver upgrade, reboot (or unload and reload the nvidia modules) so that the module and the libraries "
      "are one version; in a container, let the NVIDIA runtime mount the host's libcuda instead of shipping one.",
      "驱动升级后重启（或卸载并重新加载 nvidia 模块），使内核模块与库为同一版本；在容器中由 NVIDIA 运行时挂载宿主机的 "
      "libcuda，而不要在镜像中自带。"},
     "cat /proc/driver/nvidia/version; ls -l $(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')",
     {},
     {}},
    {"l3.gpu.fabric_manager", Layer::L3, Pillar::comm, Section::gpu,
     {"Fabric Manager on an NVSwitch system", "NVSwitch 系统上的 Fabric Manager"},
     {{"pass", {"{count} NVSwitch(es) and nv-fabricmanager runs", "{count} 个 NVSwitch，nv-fabricmanager 正在运行"}},
      {"no_nvswitch", {"no NVSwitch on this machine: Fabric Manager is not needed", "本机没有 NVSwitch：不需要 Fabric Manager"}},
      {"fail", {"{count} NVSwitch(es) ({switches}) but no nv-fabricmanager process: CUDA fails with \"system not yet "
                "initialized\" (error 802) until the fabric is configured",
                "有 {count} 个 NVSwitch（{switches}），但没有 nv-fabricmanager 进程：在 fabric 配置完成之前，CUDA 会报 \"system not "
                "yet initialized\"（错误 802）"}}},
     {"Install the nvidia-fabricmanager package of exactly the driver's version and start it (systemctl enable --now "
      "nvidia-fabricmanager); its log (/var/log/fabricmanager.log) says why it stopped.",
      "安装与驱动版本完全一致的 nvidia-fabricmanager 软件包并启动它（systemctl enable --now nvidia-fabricmanager）；"
      "其日志（/var/log/fabricmanager.log）会说明停止的原因。"},
     "systemctl status nvidia-fabricmanager; nvidia-smi -q | grep -A2 -i fabric",
     {},
     {}},
    {"l3.gpu.device_query", Layer::L3, Pillar::platform, Section::gpu,
     {"CUDA device query (driver API)", "CUDA 设备查询（驱动 API）"},
     {{"pass", {"{count} devices: context, allocation and copy work", "{count} 块设备：上下文、显存分配与拷贝正常"}},
      {"partly", {"{tested} of {count} devices: context, allocation and copy work; no context on the others ({untested}); "
                  "--cuda-context always also tries the GPUs in use",
                  "{count} 块设备中 {tested} 块：上下文、显存分配与拷贝正常；其余未创建上下文（{untested}）；"
                  "--cuda-context always 也会测试正在使用的 GPU"}},
      {"enumerated", {"{count} devices answer the driver API (cuInit, count, attributes); no context created ({untested}); "
                      "--cuda-context always also tries the GPUs in use",
                      "{count} 块设备响应驱动 API（cuInit、设备数、属性）；未创建上下文（{untested}）；"
                      "--cuda-context always 也会测试正在使用的 GPU"}},
      {"fail", {"device query failed ({status}): {detail}", "设备查询失败（{status}）：{detail}"}},
      {"stub_library", {"libcuda on the loader path is the toolkit's stub ({detail})", "加载器找到的 libcuda 是工具包的 stub（{detail}）"}},
      {"insufficient_driver", {"the CUDA runtime rejects the driver as too old ({detail})", "CUDA 运行时认为驱动版本过低（{detail}）"}}},
     {"stub: remove .../lib64/stubs from LD_LIBRARY_PATH or ld.so.conf (stubs are for linking only). no driver / "
      "insufficient: install or upgrade the NVIDIA driver so libcuda.so.1 matches the kernel module.",
      "stub：从 LD_LIBRARY_PATH 或 ld.so.conf 中移除 .../lib64/stubs（仅用于链接）；无驱动/版本不足：安装或升级 NVIDIA 驱动，使 libcuda.so.1 "
      "与内核模块一致。"},
     "ldconfig -p | grep libcuda.so.1; /usr/local/cuda/extras/demo_suite/deviceQuery | tail -1",
     {},
     {}},
};
});
  t.add_rule({"l3.gpu.cuda_driver_compat", {"collect.gpu", "collect.cuda"}, judge_compat});
  t.add_rule({"l3.gpu.toolkit_runtime", {"collect.cuda"}, judge_toolkit});
  t.add_rule({"l3.gpu.lib_duplicates", {"collect.cuda"}, judge_duplicates});
  t.add_rule({"l3.gpu.driver_module_version", {"collect.cuda"}, judge_module_version});
  t.add_rule({"l3.gpu.fabric_manager", {"collect.cuda"}, judge_fabric_manager});
  t.add_rule({"l3.gpu.device_query", {"collect.gpu", "collect.cuda"}, judge_device_query});
}

}  // namespace plumb
