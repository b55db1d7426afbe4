// GpuSampler over NVML loaded with dlopen: one function table filled once, newest symbol names
// first (nvml-api.md section 1), every per-device query optional.
#include <dlfcn.h>

#include <chrono>
#include <cctype>
#include <cstring>
#include <optional>

#include "watch/gpu_sampler.h"
#include "watch/nvml_min.h"

namespace plumb::watch {

namespace {

struct NvmlTable {
  void* handle = nullptr;
  nvml::InitFn init = nullptr;
  nvml::ShutdownFn shutdown = nullptr;
  nvml::ErrorStringFn error_string = nullptr;
  nvml::GetCountFn get_count = nullptr;
  nvml::GetHandleByIndexFn get_handle = nullptr;
  nvml::GetStringFn get_uuid = nullptr;
  nvml::GetStringFn get_name = nullptr;
  nvml::GetPciInfoFn get_pci = nullptr;
  nvml::GetUtilizationFn get_util = nullptr;
  nvml::GetMemoryFn get_memory = nullptr;
  nvml::GetTemperatureFn get_temperature = nullptr;
  nvml::GetUintFn get_power = nullptr;
  nvml::GetClockInfoFn get_clock = nullptr;
  nvml::GetReasonsFn get_reasons = nullptr;
  nvml::GetPcieThroughputFn get_pcie = nullptr;
};

template <class Fn>
Fn resolve(void* h, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (void* p = ::dlsym(h, n)) return reinterpret_cast<Fn>(p);
  }
  return nullptr;
}

std::string describe(const NvmlTable& t, nvml::Return r) {
  const char* s = t.error_string != nullptr ? t.error_string(r) : nullptr;
  return s != nullptr ? std::string(s) + " (" + std::to_string(r) + ")" : "NVML error " + std::to_string(r);
}

// "00000000:3B:00.0" -> "0000:3b:00.0": the sysfs form other areas key GPUs by.
std::string normalise_bus_id(const char* raw) {
  std::string s(raw, ::strnlen(raw, 32));
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto colon = s.find(':');
  if (colon != std::string::npos && colon > 4) s.erase(0, colon - 4);
  return s;
}

class NvmlSampler final : public GpuSampler {
 public:
  NvmlSampler(NvmlTable t, std::vector<nvml::Device> devs, std::vector<WatchGpu> ids, double pcie_every_s)
      : t_(t), devs_(std::move(devs)), ids_(std::move(ids)), pcie_every_(pcie_every_s), pcie_(ids_.size()) {}
  ~NvmlSampler() override {
    if (t_.shutdown != nullptr) t_.shutdown();
    // The library stays loaded: NVML may keep threads alive past nvmlShutdown.
  }
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  std::vector<WatchGpu> sample() override {
    auto now = std::chrono::steady_clock::now();
    bool read_pcie = t_.get_pcie != nullptr &&
                     (!pcie_read_ || std::chrono::duration<double>(now - *pcie_read_).count() >= pcie_every_);
    if (read_pcie) pcie_read_ = now;
    std::vector<WatchGpu> out = ids_;
    for (std::size_t i = 0; i < devs_.size(); ++i) {
      nvml::Device d = devs_[i];
      WatchGpu& g = out[i];
      if (t_.get_util != nullptr) {
        nvml::Utilization u{};
        if (t_.get_util(d, &u) == nvml::kSuccess) {
          g.busy_pct = u.gpu;
          g.mem_busy_pct = u.memory;
        }
      }
      if (t_.get_memory != nullptr) {
        nvml::Memory m{};
        if (t_.get_memory(d, &m) == nvml::kSuccess) {
          g.mem_used_bytes = m.used;
          g.mem_total_bytes = m.total;
        }
      }
      unsigned v = 0;
      if (t_.get_temperature != nullptr && t_.get_temperature(d, nvml::kTemperatureGpu, &v) == nvml::kSuccess) g.temperature_c = v;
      if (t_.get_power != nullptr && t_.get_power(d, &v) == nvml::kSuccess) g.power_w = v / 1000.0;  // mW
      if (t_.get_clock != nullptr && t_.get_clock(d, nvml::kClockSm, &v) == nvml::kSuccess) g.sm_clock_mhz = v;
      unsigned long long reasons = 0;
      if (t_.get_reasons != nullptr && t_.get_reasons(d, &reasons) == nvml::kSuccess) g.clock_event_reasons = reasons;
      if (read_pcie) {
        unsigned rx = 0, tx = 0;
        pcie_[i] = {};
        if (t_.get_pcie(d, nvml::kPcieRxBytes, &rx) == nvml::kSuccess) pcie_[i].first = rx * 1024.0;  // KB/s
        if (t_.get_pcie(d, nvml::kPcieTxBytes, &tx) == nvml::kSuccess) pcie_[i].second = tx * 1024.0;
      }
      g.pcie_rx_bytes_per_s = pcie_[i].first;
      g.pcie_tx_bytes_per_s = pcie_[i].second;
    }
    return out;
  }
  [[nodiscard]] std::string source() const override { return "nvml"; }

 private:
  NvmlTable t_;
  std::vector<nvml::Device> devs_;
  std::vector<WatchGpu> ids_;
  double pcie_every_;
  std::optional<std::chrono::steady_clock::time_point> pcie_read_;
  std::vector<std::pair<std::optional<double>, std::optional<double>>> pcie_;
};

}  // namespace

Result<std::unique_ptr<GpuSampler>> open_nvml_sampler(const std::string& lib, double pcie_every_s) {
  std::string name = lib.empty() ? std::string("libnvidia-ml.so.1") : lib;
  NvmlTable t;
  t.handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (t.handle == nullptr) {
    const char* e = ::dlerror();
    return make_error(ErrorKind::absent, name + " not found (no NVIDIA driver?): " + (e != nullptr ? e : "dlopen failed"));
  }
  t.init = resolve<nvml::InitFn>(t.handle, {"nvmlInit_v2", "nvmlInit"});
  t.shutdown = resolve<nvml::ShutdownFn>(t.handle, {"nvmlShutdown"});
  t.error_string = resolve<nvml::ErrorStringFn>(t.handle, {"nvmlErrorString"});
  t.get_count = resolve<nvml::GetCountFn>(t.handle, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  t.get_handle = resolve<nvml::GetHandleByIndexFn>(t.handle, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  if (t.init == nullptr || t.shutdown == nullptr || t.get_count == nullptr || t.get_handle == nullptr) {
    return make_error(ErrorKind::unsupported, name + " lacks nvmlInit/nvmlDeviceGetCount/nvmlDeviceGetHandleByIndex");
  }
  t.get_uuid = resolve<nvml::GetStringFn>(t.handle, {"nvmlDeviceGetUUID"});
  t.get_name = resolve<nvml::GetStringFn>(t.handle, {"nvmlDeviceGetName"});
  t.get_pci = resolve<nvml::GetPciInfoFn>(t.handle, {"nvmlDeviceGetPciInfo_v3"});
  t.get_util = resolve<nvml::GetUtilizationFn>(t.handle, {"nvmlDeviceGetUtilizationRates"});
  t.get_memory = resolve<nvml::GetMemoryFn>(t.handle, {"nvmlDeviceGetMemoryInfo"});
  t.get_temperature = resolve<nvml::GetTemperatureFn>(t.handle, {"nvmlDeviceGetTemperature"});
  t.get_power = resolve<nvml::GetUintFn>(t.handle, {"nvmlDeviceGetPowerUsage"});
  t.get_clock = resolve<nvml::GetClockInfoFn>(t.handle, {"nvmlDeviceGetClockInfo"});
  t.get_reasons = resolve<nvml::GetReasonsFn>(
      t.handle, {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  t.get_pcie = resolve<nvml::GetPcieThroughputFn>(t.handle, {"nvmlDeviceGetPcieThroughput"});

  nvml::Return r = t.init();
  if (r != nvml::kSuccess) return make_error(ErrorKind::unsupported, "nvmlInit failed: " + describe(t, r));
  unsigned count = 0;
  r = t.get_count(&count);
  if (r != nvml::kSuccess) {
    t.shutdown();
    return make_error(ErrorKind::unsupported, "nvmlDeviceGetCount failed: " + describe(t, r));
  }
  std::vector<nvml::Device> devs;
  std::vector<WatchGpu> ids;
  for (unsigned i = 0; i < count && i < 1024; ++i) {
    nvml::Device d = nullptr;
    if (t.get_handle(i, &d) != nvml::kSuccess || d == nullptr) continue;  // no permission: not watchable
    WatchGpu g;
    char buf[nvml::kUuidBufferSize] = {};
    if (t.get_uuid != nullptr && t.get_uuid(d, buf, sizeof buf) == nvml::kSuccess) g.uuid = std::string(buf, ::strnlen(buf, sizeof buf));
    char nbuf[nvml::kNameBufferSize] = {};
    if (t.get_name != nullptr && t.get_name(d, nbuf, sizeof nbuf) == nvml::kSuccess) g.name = std::string(nbuf, ::strnlen(nbuf, sizeof nbuf));
    nvml::PciInfo pci{};
    if (t.get_pci != nullptr && t.get_pci(d, &pci) == nvml::kSuccess) g.bus_id = normalise_bus_id(pci.bus_id);
    if (g.bus_id.empty()) g.bus_id = "nvml-index-" + std::to_string(i);
    devs.push_back(d);
    ids.push_back(std::move(g));
  }
  if (devs.empty()) {
    t.shutdown();
    return make_error(ErrorKind::absent, "NVML reports no accessible GPU");
  }
  return std::unique_ptr<GpuSampler>(new NvmlSampler(t, std::move(devs), std::move(ids), pcie_every_s));
}

}  // namespace plumb::watch
