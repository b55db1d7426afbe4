// The GPU side of `plumb watch`: a small sampling interface with two implementations, NVML
// through dlopen (gpu_sampler_nvml.cpp) and a scripted one (tests, demos, --gpu-script).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/facts/watch.h"
#include "core/result.h"

namespace plumb::watch {

class GpuSampler {
 public:
  virtual ~GpuSampler() = default;
  // One reading per GPU; a value the driver does not support stays std::nullopt.
  virtual std::vector<WatchGpu> sample() = 0;
  // "nvml", "script:<file>": written into WatchFacts::gpu_source.
  [[nodiscard]] virtual std::string source() const = 0;
};

// Loads NVML (lib: a path or soname; empty means libnvidia-ml.so.1), initialises it and
// enumerates the GPUs. Errors say why in one line ("libnvidia-ml.so.1 not found: ...").
// pcie_every_s: NVML measures PCIe throughput over ~20 ms per call, so it is read at most this
// often and carried forward in between.
Result<std::unique_ptr<GpuSampler>> open_nvml_sampler(const std::string& lib, double pcie_every_s = 1.0);

// A GPU whose values follow a script: each series is read cyclically, value i at tick i.
struct GpuScript {
  std::string uuid, bus_id, name;
  std::uint64_t mem_total_bytes = 0;
  std::vector<double> busy_pct, mem_used_bytes, temperature_c, power_w, sm_clock_mhz, pcie_rx_bytes_per_s,
      pcie_tx_bytes_per_s, nvlink_rx_bytes_per_s, nvlink_tx_bytes_per_s;
  std::vector<std::uint64_t> clock_event_reasons;
};
std::unique_ptr<GpuSampler> make_scripted_sampler(std::vector<GpuScript> gpus, std::string source = "script");
// The script as JSON: {"gpus":[{"uuid":..,"bus_id":..,"name":..,"mem_total_bytes":..,"busy_pct":[..],..}]}.
Result<std::vector<GpuScript>> parse_gpu_script(const std::string& text, const std::string& origin);

}  // namespace plumb::watch
