// SM/memory clocks and clock-event reasons per GPU for the benchmark context block, through the
// NVML loader (vendor/nvml_loader.h: one table, newest names first, never closed) under a deadline.
#include "bench/nvml_clocks.h"

#include <memory>

#include "collect/gpu_processes.h"
#include "core/deadline.h"
#include "vendor/nvml_devices.h"
#include "vendor/nvml_loader.h"
#include "vendor/nvml_processes.h"

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

// Reads every GPU; NVML is initialised and shut down here (both reference-counted by NVML, so
// this pairs with the collector's own).
std::vector<BenchGpuState> read_states(const NvmlLibrary& lib, const HostRoot& root) {
  std::vector<BenchGpuState> out;
  const NvmlApi& a = lib.api();
  auto list = nvml_devices(lib);
  if (!list) return out;
  const std::string reasons = reasons_name(lib);
  const OwnPids own(root);
  for (const NvmlDevice& nd : list->devices) {
    if (nd.handle == nullptr || out.size() >= 64) continue;
    nvml::Device d = nd.handle;
    BenchGpuState s;
    s.bus_id = nd.bus_id.empty() ? "index " + std::to_string(nd.index) : nd.bus_id;
    const std::string src = "(gpu " + s.bus_id + ")";
    s.sm_clock_mhz = clock_of(a, d, nvml::kClockSm, src);
    s.mem_clock_mhz = clock_of(a, d, nvml::kClockMem, src);
    unsigned long long r = 0;
    if (a.event_reasons != nullptr && a.event_reasons(d, &r) == nvml::kSuccess) {
      s.throttle_reasons = Fact<std::uint64_t>::of(r, reasons + src);
    } else {
      s.throttle_reasons = Fact<std::uint64_t>::none("not supported", reasons + src);
    }
    auto users = other_gpu_users(root, own, lib, d);
    const std::string procs = nvml_processes_function(a) + src;
    s.other_processes = users ? Fact<std::vector<std::string>>::of(std::move(*users), procs)
                              : Fact<std::vector<std::string>>::none(users.error().message, procs);
    out.push_back(std::move(s));
  }
  if (a.shutdown != nullptr) a.shutdown();
  return out;
}

}  // namespace

std::vector<BenchGpuState> read_gpu_states(const std::string& nvml_lib, std::chrono::milliseconds deadline,
                                           const HostRoot& root) {
  auto lib = NvmlLibrary::open(nvml_lib);
  if (!lib) return {};
  // The worker owns the library's shared pointer only, so abandoning it at the deadline is safe.
  std::shared_ptr<const NvmlLibrary> keep = *lib;
  auto states = run_with_deadline<std::vector<BenchGpuState>>([keep, root] { return read_states(*keep, root); }, deadline);
  return states.value_or(std::vector<BenchGpuState>{});
}

}  // namespace plumb
