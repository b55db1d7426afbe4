// NVML running compute processes.
#include "vendor/nvml_processes.h"

#include <cstring>

namespace plumb {

std::string nvml_processes_function(const NvmlApi& api) {
  switch (api.processes == nullptr ? 0 : api.processes_version) {
    case 3: return "nvmlDeviceGetComputeRunningProcesses_v3";
    case 2: return "nvmlDeviceGetComputeRunningProcesses_v2";
    case 1: return "nvmlDeviceGetComputeRunningProcesses";
    default: return {};
  }
}

nvml::Return nvml_read_compute_processes(const NvmlApi& a, nvml::Device device, std::vector<NvmlProcess>& out) {
  out.clear();
  const bool v1 = a.processes_version == 1;
  const std::size_t elem = v1 ? sizeof(nvml::ProcessInfoV1) : sizeof(nvml::ProcessInfoV2);
  unsigned int n = 0;
  std::vector<unsigned char> buf;
  nvml::Return rc = a.processes(device, &n, nullptr);
  for (int tries = 0; rc == nvml::kErrorInsufficientSize && tries < 4; ++tries) {
    n += 8;
    buf.assign(static_cast<std::size_t>(n) * elem, 0);
    rc = a.processes(device, &n, buf.data());
  }
  if (rc != nvml::kSuccess) return rc;
  for (std::size_t i = 0; i < n && (i + 1) * elem <= buf.size(); ++i) {
    NvmlProcess p;
    unsigned long long used = 0;
    if (v1) {
      nvml::ProcessInfoV1 pi{};
      std::memcpy(&pi, buf.data() + i * elem, sizeof pi);
      p.pid = pi.pid;
      used = pi.usedGpuMemory;
    } else {
      nvml::ProcessInfoV2 pi{};
      std::memcpy(&pi, buf.data() + i * elem, sizeof pi);
      p.pid = pi.pid;
      used = pi.usedGpuMemory;
    }
    if (used != nvml::kValueNotAvailable) p.used_memory_bytes = used;
    out.push_back(p);
  }
  return rc;
}

Result<std::vector<NvmlProcess>> nvml_compute_processes(const NvmlLibrary& lib, nvml::Device device) {
  const NvmlApi& a = lib.api();
  if (a.processes == nullptr) {
    return make_error(ErrorKind::unsupported, lib.path() + " lacks nvmlDeviceGetComputeRunningProcesses");
  }
  std::vector<NvmlProcess> out;
  nvml::Return rc = nvml_read_compute_processes(a, device, out);
  if (rc != nvml::kSuccess) return make_error(ErrorKind::io, nvml_processes_function(a) + ": " + lib.describe(rc));
  return out;
}

}  // namespace plumb
