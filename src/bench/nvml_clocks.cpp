// SM/memory clocks and clock-event reasons per GPU for the benchmark context block, through the
// GPU layer's NVML loader (gpu/nvml_loader.h: one table, newest names first, never closed).
#include "bench/nvml_clocks.h"

#include <cstring>

#include "collect/gpu_nvml.h"
#include "vendor/nvml_loader.h"

namespace plumb {

namespace {

// The clock-event getter that resolved: renamed in R535 (CUDA 12.2), the old name kept by later
// drivers but deprecated in 13.0.
std::string reasons_name(const NvmlLibrary& lib) {
  for (const auto& n : lib.resolved()) {
    if (n == "nvmlDeviceGetCurrentClocksEventReasons" || n == "nvmlDeviceGetCurrentClocksThrottleReasons") return n;
  }
  return "nvmlDeviceGetCurrentClocksEventReasons";
}

Fact<int> clock_of(const NvmlApi& a, nvml::Device d, int which, const std::string& src) {
  unsigned v = 0;
  if (a.clock != nullptr && a.clock(d, which, &v) == nvml::kSuccess) {
    return Fact<int>::of(static_cast<int>(v), "nvmlDeviceGetClockInfo" + src);
  }
  return Fact<int>::none("not supported", "nvmlDeviceGetClockInfo" + src);
}

}  // namespace

std::vector<BenchGpuState> read_gpu_states(const std::string& nvml_lib) {
  std::vector<BenchGpuState> out;
  auto lib = NvmlLibrary::open(nvml_lib);
  if (!lib) return out;
  const NvmlApi& a = (*lib)->api();
  // nvmlInit/nvmlShutdown are reference-counted by NVML, so this pairs with the collector's own.
  if (a.init() != nvml::kSuccess) return out;
  const std::string reasons = reasons_name(**lib);
  unsigned n = 0;
  if (a.device_count(&n) == nvml::kSuccess) {
    for (unsigned i = 0; i < n && i < 64; ++i) {
      nvml::Device d = nullptr;
      if (a.handle_by_index(i, &d) != nvml::kSuccess) continue;
      BenchGpuState s;
      nvml::PciInfo p{};
      if (a.pci_info != nullptr && a.pci_info(d, &p) == nvml::kSuccess) {
        std::string id(p.busId, strnlen(p.busId, sizeof p.busId));
        s.bus_id = normalise_bus_id(id).value_or(id);  // "00000000:3B:00.0" -> "0000:3b:00.0"
      } else {
        s.bus_id = "index " + std::to_string(i);
      }
      const std::string src = "(gpu " + s.bus_id + ")";
      s.sm_clock_mhz = clock_of(a, d, nvml::kClockSm, src);
      s.mem_clock_mhz = clock_of(a, d, nvml::kClockMem, src);
      unsigned long long r = 0;
      if (a.event_reasons != nullptr && a.event_reasons(d, &r) == nvml::kSuccess) {
        s.throttle_reasons = Fact<std::uint64_t>::of(r, reasons + src);
      } else {
        s.throttle_reasons = Fact<std::uint64_t>::none("not supported", reasons + src);
      }
      out.push_back(std::move(s));
    }
  }
  if (a.shutdown != nullptr) a.shutdown();
  return out;
}

}  // namespace plumb
