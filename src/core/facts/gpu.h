// Facts of the GPU layer: NVML devices, driver, CUDA libraries (owner: GPU helper, issue 3).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json.h"

namespace plumb {

// Contract used by other areas (topology, watch, framework rules): one entry per GPU, keyed by
// UUID and PCI bus id, never by NVML index.
struct GpuDevice {
  std::string uuid;     // "GPU-…"
  std::string bus_id;   // "0000:3b:00.0", lower-case, domain included (sysfs style)
  std::string name;     // "NVIDIA H100 80GB HBM3"
  bool operator==(const GpuDevice&) const = default;
};
PLUMB_JSON(GpuDevice, uuid, bus_id, name)

struct GpuFacts {
  bool collected = false;
  // Why the GPU layer could not be read ("libnvidia-ml.so.1 not found: no NVIDIA driver"); empty when it was.
  std::string unavailable;
  Fact<std::string> driver_version;       // "535.161.08"
  Fact<int> cuda_driver_version;          // nvmlSystemGetCudaDriverVersion: 12020 for 12.2
  std::vector<GpuDevice> devices;
  bool operator==(const GpuFacts&) const = default;
};
PLUMB_JSON(GpuFacts, collected, unavailable, driver_version, cuda_driver_version, devices)

}  // namespace plumb
