// Fills the NVML function table once per library path with dlopen/dlsym, newest names first.
#include "vendor/nvml_loader.h"

#include <dlfcn.h>

#include <map>
#include <mutex>

namespace plumb {

namespace {

// One slot: where to store the pointer and the candidate names, newest first ([H13] NO_UNVERSIONED
// block: with dlsym we must ask for the versioned names ourselves).
template <class F>
void resolve(void* handle, F& target, std::initializer_list<const char*> names, std::vector<std::string>& resolved,
             int* which = nullptr) {
  int i = 0;
  for (const char* n : names) {
    void* p = ::dlsym(handle, n);
    if (p != nullptr) {
      target = reinterpret_cast<F>(p);
      resolved.emplace_back(n);
      if (which != nullptr) *which = i;
      return;
    }
    ++i;
  }
}

std::string dl_error() {
  const char* e = ::dlerror();
  return e != nullptr ? e : "unknown dlopen error";
}

Result<std::shared_ptr<const NvmlLibrary>> load(const std::string& path, NvmlLibrary& lib, NvmlApi& a,
                                                std::vector<std::string>& r) {
  ::dlerror();
  // RTLD_NOW as DCGM does: a broken library fails here, not in the middle of a call.
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    std::string e = dl_error();
    if (path == kDefaultNvmlLibrary && e.find("No such file") != std::string::npos) {
      return make_error(ErrorKind::absent, std::string(kDefaultNvmlLibrary) + " not found: no NVIDIA driver installed");
    }
    if (e.find("No such file") != std::string::npos) {
      return make_error(ErrorKind::absent, path + " not found (" + e + ")");
    }
    return make_error(ErrorKind::io, "cannot load " + path + ": " + e);
  }
  resolve(h, a.init, {"nvmlInit_v2", "nvmlInit"}, r);
  resolve(h, a.shutdown, {"nvmlShutdown"}, r);
  resolve(h, a.error_string, {"nvmlErrorString"}, r);
  resolve(h, a.driver_version, {"nvmlSystemGetDriverVersion"}, r);
  resolve(h, a.nvml_version, {"nvmlSystemGetNVMLVersion"}, r);
  // _v2 reads libcuda; v1 may report "a known supported version" instead of the real one.
  resolve(h, a.cuda_driver_version, {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"}, r);
  resolve(h, a.device_count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}, r);
  resolve(h, a.handle_by_index, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"}, r);
  resolve(h, a.name, {"nvmlDeviceGetName"}, r);
  resolve(h, a.uuid, {"nvmlDeviceGetUUID"}, r);
  resolve(h, a.vbios, {"nvmlDeviceGetVbiosVersion"}, r);
  // The unsuffixed v1 takes an older, different struct: not used.
  resolve(h, a.pci_info, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"}, r);
  resolve(h, a.minor_number, {"nvmlDeviceGetMinorNumber"}, r);
  resolve(h, a.memory_v2, {"nvmlDeviceGetMemoryInfo_v2"}, r);
  resolve(h, a.memory_v1, {"nvmlDeviceGetMemoryInfo"}, r);
  resolve(h, a.utilization, {"nvmlDeviceGetUtilizationRates"}, r);
  resolve(h, a.temperature_v, {"nvmlDeviceGetTemperatureV"}, r);
  resolve(h, a.temperature_v1, {"nvmlDeviceGetTemperature"}, r);
  resolve(h, a.temperature_threshold, {"nvmlDeviceGetTemperatureThreshold"}, r);
  resolve(h, a.power_usage, {"nvmlDeviceGetPowerUsage"}, r);
  resolve(h, a.power_limit, {"nvmlDeviceGetEnforcedPowerLimit"}, r);
  resolve(h, a.clock, {"nvmlDeviceGetClockInfo"}, r);
  resolve(h, a.max_clock, {"nvmlDeviceGetMaxClockInfo"}, r);
  // EventReasons arrived with R535 (absent from [H12.1], present in [H12.2]).
  resolve(h, a.event_reasons, {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"}, r);
  resolve(h, a.supported_event_reasons,
          {"nvmlDeviceGetSupportedClocksEventReasons", "nvmlDeviceGetSupportedClocksThrottleReasons"}, r);
  resolve(h, a.pcie_gen, {"nvmlDeviceGetCurrPcieLinkGeneration"}, r);
  resolve(h, a.pcie_width, {"nvmlDeviceGetCurrPcieLinkWidth"}, r);
  resolve(h, a.pcie_max_gen, {"nvmlDeviceGetMaxPcieLinkGeneration"}, r);
  resolve(h, a.pcie_gpu_max_gen, {"nvmlDeviceGetGpuMaxPcieLinkGeneration"}, r);
  resolve(h, a.pcie_max_width, {"nvmlDeviceGetMaxPcieLinkWidth"}, r);
  resolve(h, a.ecc_mode, {"nvmlDeviceGetEccMode"}, r);
  resolve(h, a.ecc_total, {"nvmlDeviceGetTotalEccErrors"}, r);
  resolve(h, a.retired_pages, {"nvmlDeviceGetRetiredPages"}, r);
  resolve(h, a.retired_pending, {"nvmlDeviceGetRetiredPagesPendingStatus"}, r);
  resolve(h, a.remapped_rows, {"nvmlDeviceGetRemappedRows"}, r);
  resolve(h, a.persistence_mode, {"nvmlDeviceGetPersistenceMode"}, r);
  resolve(h, a.compute_mode, {"nvmlDeviceGetComputeMode"}, r);
  resolve(h, a.mig_mode, {"nvmlDeviceGetMigMode"}, r);
  resolve(h, a.nvlink_state, {"nvmlDeviceGetNvLinkState"}, r);
  resolve(h, a.nvlink_remote_pci, {"nvmlDeviceGetNvLinkRemotePciInfo_v2"}, r);
  resolve(h, a.nvlink_remote_type, {"nvmlDeviceGetNvLinkRemoteDeviceType"}, r);
  int which = -1;
  resolve(h, a.processes,
          {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
           "nvmlDeviceGetComputeRunningProcesses"},
          r, &which);
  a.processes_version = which < 0 ? 0 : 3 - which;
  resolve(h, a.topology, {"nvmlDeviceGetTopologyCommonAncestor"}, r);
  resolve(h, a.pcie_throughput, {"nvmlDeviceGetPcieThroughput"}, r);
  resolve(h, a.field_values, {"nvmlDeviceGetFieldValues"}, r);
  if (a.init == nullptr || a.device_count == nullptr || a.handle_by_index == nullptr) {
    return make_error(ErrorKind::unsupported, path + " is not a usable NVML library (nvmlInit, nvmlDeviceGetCount or "
                                                    "nvmlDeviceGetHandleByIndex missing)");
  }
  (void)lib;
  return std::shared_ptr<const NvmlLibrary>();
}

}  // namespace

Result<std::shared_ptr<const NvmlLibrary>> NvmlLibrary::open(const std::string& requested) {
  static std::mutex mu;
  static std::map<std::string, Result<std::shared_ptr<const NvmlLibrary>>> cache;
  const std::string path = requested.empty() ? std::string(kDefaultNvmlLibrary) : requested;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(path);
  if (it != cache.end()) return it->second;
  auto lib = std::make_shared<NvmlLibrary>();
  lib->path_ = path;
  auto r = load(path, *lib, lib->api_, lib->resolved_);
  Result<std::shared_ptr<const NvmlLibrary>> out =
      r ? Result<std::shared_ptr<const NvmlLibrary>>(std::shared_ptr<const NvmlLibrary>(lib)) : r;
  cache.emplace(path, out);
  return out;
}

std::string NvmlLibrary::describe(nvml::Return r) const {
  std::string s = nvml::return_name(r);
  if (std::string(s) == "NVML_ERROR_UNRECOGNISED") s = "NVML error " + std::to_string(r);
  return s + ": " + nvml::return_meaning(r);
}

}  // namespace plumb
