// NVML through dlopen: one function table per library path, filled once, each entry point optional
// with newest-first fallbacks, and the names that resolved recorded (DCGM's and nvtop's pattern).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "vendor/nvml.h"

namespace plumb {

// The resolved entry points. A null pointer means the installed driver does not export the
// function: callers turn that into a "not supported by this driver" fact.
struct NvmlApi {
  nvml::fn::Init init = nullptr;                  // nvmlInit_v2 | nvmlInit
  nvml::fn::Shutdown shutdown = nullptr;
  nvml::fn::ErrorString error_string = nullptr;
  nvml::fn::GetString driver_version = nullptr;   // nvmlSystemGetDriverVersion
  nvml::fn::GetString nvml_version = nullptr;     // nvmlSystemGetNVMLVersion
  nvml::fn::GetInt cuda_driver_version = nullptr; // _v2 (reads libcuda) | v1
  nvml::fn::GetCount device_count = nullptr;      // _v2 | v1
  nvml::fn::GetHandleByIndex handle_by_index = nullptr;
  nvml::fn::DevString name = nullptr;
  nvml::fn::DevString uuid = nullptr;
  nvml::fn::DevString vbios = nullptr;
  nvml::fn::DevPci pci_info = nullptr;            // _v3 | _v2 (same layout)
  nvml::fn::DevUint minor_number = nullptr;
  nvml::fn::DevMemV2 memory_v2 = nullptr;
  nvml::fn::DevMemV1 memory_v1 = nullptr;
  nvml::fn::DevUtil utilization = nullptr;
  nvml::fn::DevTempV temperature_v = nullptr;
  nvml::fn::DevTempV1 temperature_v1 = nullptr;
  nvml::fn::DevTempThreshold temperature_threshold = nullptr;
  nvml::fn::DevUint power_usage = nullptr;        // mW
  nvml::fn::DevUint power_limit = nullptr;        // nvmlDeviceGetEnforcedPowerLimit, mW
  nvml::fn::DevClock clock = nullptr;             // nvmlDeviceGetClockInfo
  nvml::fn::DevClock max_clock = nullptr;         // nvmlDeviceGetMaxClockInfo
  nvml::fn::DevUll event_reasons = nullptr;       // ClocksEventReasons | ClocksThrottleReasons
  nvml::fn::DevUll supported_event_reasons = nullptr;
  nvml::fn::DevUint pcie_gen = nullptr;
  nvml::fn::DevUint pcie_width = nullptr;
  nvml::fn::DevUint pcie_max_gen = nullptr;
  nvml::fn::DevUint pcie_gpu_max_gen = nullptr;   // R525+ only
  nvml::fn::DevUint pcie_max_width = nullptr;
  nvml::fn::DevEnablePair ecc_mode = nullptr;
  nvml::fn::DevEccCount ecc_total = nullptr;
  nvml::fn::DevRetiredPages retired_pages = nullptr;
  nvml::fn::DevEnable retired_pending = nullptr;
  nvml::fn::DevRemappedRows remapped_rows = nullptr;
  nvml::fn::DevEnable persistence_mode = nullptr;
  nvml::fn::DevEnable compute_mode = nullptr;
  nvml::fn::DevUintPair mig_mode = nullptr;
  nvml::fn::DevNvLinkState nvlink_state = nullptr;
  nvml::fn::DevNvLinkRemotePci nvlink_remote_pci = nullptr;    // R410+
  nvml::fn::DevNvLinkRemoteType nvlink_remote_type = nullptr;  // R450+
  nvml::fn::DevProcesses processes = nullptr;
  int processes_version = 0;                      // 3, 2 or 1: which element struct `processes` takes
  nvml::fn::DevTopology topology = nullptr;
  nvml::fn::DevPcieThroughput pcie_throughput = nullptr;  // KB/s, ~20 ms per call
  nvml::fn::DevFieldValues field_values = nullptr;
};

class NvmlLibrary {
 public:
  // Opens `path` (empty: libnvidia-ml.so.1) once per process and resolves the table. Errors say
  // precisely why ("libnvidia-ml.so.1 not found: no NVIDIA driver installed"). The library is never
  // closed: a thread abandoned inside a stuck NVML call must not find its code unmapped.
  static Result<std::shared_ptr<const NvmlLibrary>> open(const std::string& path);

  [[nodiscard]] const NvmlApi& api() const { return api_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  // Entry points that resolved, in table order ("nvmlInit_v2", "nvmlDeviceGetCount_v2", ...).
  [[nodiscard]] const std::vector<std::string>& resolved() const { return resolved_; }
  // "NVML_ERROR_NOT_SUPPORTED: not supported by this GPU or driver"
  [[nodiscard]] std::string describe(nvml::Return r) const;

 private:
  std::string path_;
  NvmlApi api_;
  std::vector<std::string> resolved_;
};

inline constexpr const char* kDefaultNvmlLibrary = "libnvidia-ml.so.1";

}  // namespace plumb
