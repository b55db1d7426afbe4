// NVML's running compute processes of one device, through the loader's newest-first variant
// (nvmlDeviceGetComputeRunningProcesses_v3, _v2, then the unversioned one with its older struct).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "vendor/nvml_loader.h"

namespace plumb {

struct NvmlProcess {
  unsigned pid = 0;
  std::optional<std::uint64_t> used_memory_bytes;  // absent when NVML says "not available" (MIG, WDDM)
};

// The name of the variant the loader resolved, "" when none.
std::string nvml_processes_function(const NvmlApi& api);

// The list may change between the sizing call and the read: the buffer grows and the call is
// retried a few times on NVML_ERROR_INSUFFICIENT_SIZE. NVML's return code, `out` filled on success
// (the loader must have resolved a variant: api.processes != nullptr).
nvml::Return nvml_read_compute_processes(const NvmlApi& api, nvml::Device device, std::vector<NvmlProcess>& out);

// The same, with a missing symbol or a failed call as an error naming the library.
Result<std::vector<NvmlProcess>> nvml_compute_processes(const NvmlLibrary& lib, nvml::Device device);

}  // namespace plumb
