// Minimal NVML through dlopen: SM/memory clocks and clock-event reasons per GPU. Declarations
// are ours, from the NVML API reference (see shared knowledge nvml-api.md, sections 3.1 and 4).
#include "bench/nvml_clocks.h"

#include <dlfcn.h>

#include <cctype>
#include <cstring>

namespace plumb {

namespace {

using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr int kNvmlSuccess = 0;
constexpr int kClockSm = 1;   // NVML_CLOCK_SM
constexpr int kClockMem = 2;  // NVML_CLOCK_MEM

struct NvmlPciInfo {  // nvmlPciInfo_t
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
static_assert(sizeof(NvmlPciInfo) == 68, "nvmlPciInfo_t is 68 bytes");

template <class F>
F sym(void* h, const char* name) {
  return reinterpret_cast<F>(::dlsym(h, name));  // NOLINT: dlsym returns void*
}

}  // namespace

std::vector<BenchGpuState> read_gpu_states(const std::string& nvml_lib) {
  std::vector<BenchGpuState> out;
  void* h = ::dlopen(nvml_lib.empty() ? "libnvidia-ml.so.1" : nvml_lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) return out;
  auto init = sym<nvmlReturn_t (*)()>(h, "nvmlInit_v2");
  auto shutdown = sym<nvmlReturn_t (*)()>(h, "nvmlShutdown");
  auto count = sym<nvmlReturn_t (*)(unsigned*)>(h, "nvmlDeviceGetCount_v2");
  auto by_index = sym<nvmlReturn_t (*)(unsigned, nvmlDevice_t*)>(h, "nvmlDeviceGetHandleByIndex_v2");
  auto pci = sym<nvmlReturn_t (*)(nvmlDevice_t, NvmlPciInfo*)>(h, "nvmlDeviceGetPciInfo_v3");
  auto clock = sym<nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*)>(h, "nvmlDeviceGetClockInfo");
  // Renamed in R535 (CUDA 12.2); the old name is kept by later drivers but deprecated in 13.0.
  auto reasons = sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*)>(h, "nvmlDeviceGetCurrentClocksEventReasons");
  const char* reasons_name = "nvmlDeviceGetCurrentClocksEventReasons";
  if (reasons == nullptr) {
    reasons = sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*)>(h, "nvmlDeviceGetCurrentClocksThrottleReasons");
    reasons_name = "nvmlDeviceGetCurrentClocksThrottleReasons";
  }
  if (init == nullptr || count == nullptr || by_index == nullptr || init() != kNvmlSuccess) {
    ::dlclose(h);
    return out;
  }
  unsigned n = 0;
  if (count(&n) == kNvmlSuccess) {
    for (unsigned i = 0; i < n && i < 64; ++i) {
      nvmlDevice_t d = nullptr;
      if (by_index(i, &d) != kNvmlSuccess) continue;
      BenchGpuState s;
      NvmlPciInfo p{};
      if (pci != nullptr && pci(d, &p) == kNvmlSuccess) {
        std::string id(p.bus_id, strnlen(p.bus_id, sizeof p.bus_id));
        for (auto& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        // "00000000:3b:00.0" -> sysfs style "0000:3b:00.0"
        if (id.size() == 16 && id.compare(0, 4, "0000") == 0) id = id.substr(4);
        s.bus_id = id;
      } else {
        s.bus_id = "index " + std::to_string(i);
      }
      std::string src = "(gpu " + s.bus_id + ")";
      unsigned v = 0;
      if (clock != nullptr && clock(d, kClockSm, &v) == kNvmlSuccess) {
        s.sm_clock_mhz = Fact<int>::of(static_cast<int>(v), "nvmlDeviceGetClockInfo" + src);
      } else {
        s.sm_clock_mhz = Fact<int>::none("not supported", "nvmlDeviceGetClockInfo" + src);
      }
      if (clock != nullptr && clock(d, kClockMem, &v) == kNvmlSuccess) {
        s.mem_clock_mhz = Fact<int>::of(static_cast<int>(v), "nvmlDeviceGetClockInfo" + src);
      } else {
        s.mem_clock_mhz = Fact<int>::none("not supported", "nvmlDeviceGetClockInfo" + src);
      }
      unsigned long long r = 0;
      if (reasons != nullptr && reasons(d, &r) == kNvmlSuccess) {
        s.throttle_reasons = Fact<std::uint64_t>::of(r, std::string(reasons_name) + src);
      } else {
        s.throttle_reasons = Fact<std::uint64_t>::none("not supported", std::string(reasons_name) + src);
      }
      out.push_back(std::move(s));
    }
  }
  if (shutdown != nullptr) shutdown();
  ::dlclose(h);
  return out;
}

}  // namespace plumb
