// NVML's device list, read one way for every reader of NVML (the GPU collector, the watch sampler,
// the benchmark clocks): nvmlInit, nvmlDeviceGetCount, then per index the handle and the PCI bus id.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "vendor/nvml_loader.h"

namespace plumb {

// NVML's "00000000:3B:00.0" (or the legacy "0000:3B:00.0") -> sysfs's "0000:3b:00.0"; nullopt on garbage.
std::optional<std::string> normalise_bus_id(std::string_view nvml_bus_id);

// One index below nvmlDeviceGetCount.
struct NvmlDevice {
  unsigned index = 0;
  nvml::Device handle = nullptr;  // null when `error` says why there is none
  std::string bus_id;             // "0000:3b:00.0"; NVML's text when it does not parse; empty when unknown
  // "nvmlDeviceGetHandleByIndex(2): NVML_ERROR_NO_PERMISSION: ..." or "nvmlDeviceGetPciInfo: ...":
  // the device cannot be read further. Empty when the device is usable.
  std::string error;
};

struct NvmlDeviceList {
  // "nvmlDeviceGetCount failed: NVML_ERROR_...: ..." when NVML gave no count (then `devices` is empty).
  std::string count_error;
  unsigned count = 0;                // what nvmlDeviceGetCount said
  std::vector<NvmlDevice> devices;   // one per index, at most kMaxNvmlDevices
};

inline constexpr unsigned kMaxNvmlDevices = 1024;

// Told the name of each NVML call before it is made ("nvmlDeviceGetHandleByIndex"), so a caller
// that waits under a deadline can say which call stalled.
using NvmlCallHook = std::function<void(const char* call)>;

// Initialises NVML and lists its devices. On success NVML stays initialised, also when only the
// count failed: the caller balances it with nvmlShutdown. The error is "nvmlInit failed: <NVML's
// error name and text>" (NVML not initialised), or "<path> lacks nvmlInit" and the like when the
// library does not export the calls needed.
Result<NvmlDeviceList> nvml_devices(const NvmlLibrary& lib, const NvmlCallHook& on_call = {});

}  // namespace plumb
