// Fills the NVML function table once per library path through vendor/dynlib, newest names first.
#include "vendor/nvml_loader.h"

#include <initializer_list>
#include <map>
#include <mutex>

#include "vendor/dynlib.h"

namespace plumb {

namespace {

Result<std::shared_ptr<const NvmlLibrary>> load_nvml(const std::string& path, NvmlLibrary& lib, NvmlApi& a,
                                                std::vector<std::string>& r) {
  // RTLD_NOW as DCGM does: a broken library fails here, not in the middle of a call. The default
  // is the driver's versioned name, then the development symlink.
  auto opened = path == kDefaultNvmlLibrary ? dynlib::open_first({kDefaultNvmlLibrary, "libnvidia-ml.so"}) : dynlib::open(path);
  if (!opened) {
    if (path == kDefaultNvmlLibrary && opened.error().kind == ErrorKind::absent) {
      return make_error(ErrorKind::absent, std::string(kDefaultNvmlLibrary) + " not found: no NVIDIA driver installed");
    }
    return opened.error();
  }
  const dynlib::Library& h = *opened;
  auto resolve = [&r](const dynlib::Library& lib, auto& target, std::initializer_list<const char*> names,
                      int* which = nullptr) {
    int i = dynlib::resolve(lib, target, names, &r);
    if (which != nullptr) *which = i;
  };
  resolve(h, a.init, {"nvmlInit_v2", "nvmlInit"});
  resolve(h, a.shutdown, {"nvmlShutdown"});
  resolve(h, a.error_string, {"nvmlErrorString"});
  resolve(h, a.driver_version, {"nvmlSystemGetDriverVersion"});
  resolve(h, a.nvml_version, {"nvmlSystemGetNVMLVersion"});
  // _v2 reads libcuda; v1 may report "a known supported version" instead of the real one.
  resolve(h, a.cuda_driver_version, {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"});
  resolve(h, a.device_count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  resolve(h, a.handle_by_index, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  resolve(h, a.name, {"nvmlDeviceGetName"});
  resolve(h, a.uuid, {"nvmlDeviceGetUUID"});
  resolve(h, a.vbios, {"nvmlDeviceGetVbiosVersion"});
  // The unsuffixed v1 takes an older, different struct: not used.
  resolve(h, a.pci_info, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"});
  resolve(h, a.minor_number, {"nvmlDeviceGetMinorNumber"});
  resolve(h, a.memory_v2, {"nvmlDeviceGetMemoryInfo_v2"});
  resolve(h, a.memory_v1, {"nvmlDeviceGetMemoryInfo"});
  resolve(h, a.utilization, {"nvmlDeviceGetUtilizationRates"});
  resolve(h, a.temperature_v, {"nvmlDeviceGetTemperatureV"});
  resolve(h, a.temperature_v1, {"nvmlDeviceGetTemperature"});
  resolve(h, a.temperature_threshold, {"nvmlDeviceGetTemperatureThreshold"});
  resolve(h, a.power_usage, {"nvmlDeviceGetPowerUsage"});
  resolve(h, a.power_limit, {"nvmlDeviceGetEnforcedPowerLimit"});
  resolve(h, a.clock, {"nvmlDeviceGetClockInfo"});
  resolve(h, a.max_clock, {"nvmlDeviceGetMaxClockInfo"});
  // EventReasons arrived with R535 (absent from NVML 12.1's nvml.h, present in 12.2's).
  resolve(h, a.event_reasons, {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  resolve(h, a.supported_event_reasons,
          {"nvmlDeviceGetSupportedClocksEventReasons", "nvmlDeviceGetSupportedClocksThrottleReasons"});
  resolve(h, a.pcie_gen, {"nvmlDeviceGetCurrPcieLinkGeneration"});
  resolve(h, a.pcie_width, {"nvmlDeviceGetCurrPcieLinkWidth"});
  resolve(h, a.pcie_max_gen, {"nvmlDeviceGetMaxPcieLinkGeneration"});
  resolve(h, a.pcie_gpu_max_gen, {"nvmlDeviceGetGpuMaxPcieLinkGeneration"});
  resolve(h, a.pcie_max_width, {"nvmlDeviceGetMaxPcieLinkWidth"});
  resolve(h, a.ecc_mode, {"nvmlDeviceGetEccMode"});
  resolve(h, a.ecc_total, {"nvmlDeviceGetTotalEccErrors"});
  resolve(h, a.retired_pages, {"nvmlDeviceGetRetiredPages"});
  resolve(h, a.retired_pending, {"nvmlDeviceGetRetiredPagesPendingStatus"});
  resolve(h, a.remapped_rows, {"nvmlDeviceGetRemappedRows"});
  resolve(h, a.persistence_mode, {"nvmlDeviceGetPersistenceMode"});
  resolve(h, a.compute_mode, {"nvmlDeviceGetComputeMode"});
  resolve(h, a.mig_mode, {"nvmlDeviceGetMigMode"});
  resolve(h, a.nvlink_state, {"nvmlDeviceGetNvLinkState"});
  resolve(h, a.nvlink_remote_pci, {"nvmlDeviceGetNvLinkRemotePciInfo_v2"});
  resolve(h, a.nvlink_remote_type, {"nvmlDeviceGetNvLinkRemoteDeviceType"});
  int which = -1;
  resolve(h, a.processes,
          {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
           "nvmlDeviceGetComputeRunningProcesses"},
          &which);
  a.processes_version = which < 0 ? 0 : 3 - which;
  resolve(h, a.topology, {"nvmlDeviceGetTopologyCommonAncestor"});
  resolve(h, a.pcie_throughput, {"nvmlDeviceGetPcieThroughput"});
  resolve(h, a.field_values, {"nvmlDeviceGetFieldValues"});
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
  auto r = load_nvml(path, *lib, lib->api_, lib->resolved_);
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
