// GpuSampler over the project's NVML loader (vendor/nvml_loader.h, the device list from vendor/nvml_devices.h): every per-device query is
// optional, a value the driver does not give stays unknown. NVLink throughput comes from the
// cumulative field counters, turned into rates between two reads.
#include <chrono>
#include <optional>

#include "vendor/nvml_devices.h"
#include "vendor/nvml_loader.h"
#include "collect/gpu_sampler.h"

namespace plumb::watch {

namespace {

// A field value as an unsigned counter; nullopt when NVML did not give one.
std::optional<unsigned long long> counter(const nvml::FieldValue& v) {
  if (v.nvmlReturn != nvml::kSuccess) return std::nullopt;
  switch (v.valueType) {
    case nvml::kValueUnsignedInt:
      return v.value.uiVal;
    case nvml::kValueUnsignedLong:
      return v.value.ulVal;
    case nvml::kValueUnsignedLongLong:
      return v.value.ullVal;
    case nvml::kValueSignedLongLong:
      return v.value.sllVal < 0 ? std::nullopt : std::optional<unsigned long long>(v.value.sllVal);
    case nvml::kValueSignedInt:
      return v.value.siVal < 0 ? std::nullopt : std::optional<unsigned long long>(v.value.siVal);
    case nvml::kValueUnsignedShort:
      return v.value.usVal;
    case nvml::kValueDouble:
      return v.value.dVal < 0 ? std::nullopt : std::optional<unsigned long long>(v.value.dVal);
    default:
      return std::nullopt;
  }
}

// The last NVLink counter reading of one GPU, to derive rates from.
struct NvLinkReading {
  double t_s = 0;  // when it was read (the field's own timestamp when NVML gives one)
  std::optional<unsigned long long> rx_kib, tx_kib;
};

// Bytes per second between two cumulative KiB readings; nothing across a reset or a wrap.
std::optional<double> kib_rate(std::optional<unsigned long long> before, std::optional<unsigned long long> now,
                               double dt) {
  if (!before || !now || *now < *before || dt <= 0) return std::nullopt;
  return static_cast<double>(*now - *before) * 1024.0 / dt;
}

class NvmlSampler final : public GpuSampler {
 public:
  NvmlSampler(std::shared_ptr<const NvmlLibrary> lib, std::vector<nvml::Device> devs, std::vector<WatchGpu> ids,
              double pcie_every_s)
      : lib_(std::move(lib)),
        a_(lib_->api()),
        devs_(std::move(devs)),
        ids_(std::move(ids)),
        pcie_every_(pcie_every_s),
        pcie_(ids_.size()),
        nvlink_(ids_.size()) {}
  ~NvmlSampler() override {
    // Balances our nvmlInit; the library itself stays loaded (the loader never unloads it).
    if (a_.shutdown != nullptr) a_.shutdown();
  }
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  std::vector<WatchGpu> sample() override {
    auto now = std::chrono::steady_clock::now();
    bool read_pcie = a_.pcie_throughput != nullptr &&
                     (!pcie_read_ || std::chrono::duration<double>(now - *pcie_read_).count() >= pcie_every_);
    if (read_pcie) pcie_read_ = now;
    std::vector<WatchGpu> out = ids_;
    for (std::size_t i = 0; i < devs_.size(); ++i) {
      nvml::Device d = devs_[i];
      WatchGpu& g = out[i];
      if (a_.utilization != nullptr) {
        nvml::Utilization u{};
        if (a_.utilization(d, &u) == nvml::kSuccess) {
          g.busy_pct = u.gpu;
          g.mem_busy_pct = u.memory;
        }
      }
      read_memory(d, g);
      read_temperature(d, g);
      unsigned int v = 0;
      if (a_.power_usage != nullptr && a_.power_usage(d, &v) == nvml::kSuccess) g.power_w = v / 1000.0;  // mW
      if (a_.clock != nullptr && a_.clock(d, nvml::kClockSm, &v) == nvml::kSuccess) g.sm_clock_mhz = v;
      unsigned long long reasons = 0;
      if (a_.event_reasons != nullptr && a_.event_reasons(d, &reasons) == nvml::kSuccess)
        g.clock_event_reasons = reasons;
      if (read_pcie) {
        unsigned int rx = 0, tx = 0;
        pcie_[i] = {};
        if (a_.pcie_throughput(d, nvml::kPcieUtilRxBytes, &rx) == nvml::kSuccess) pcie_[i].first = rx * 1024.0;  // KB/s
        if (a_.pcie_throughput(d, nvml::kPcieUtilTxBytes, &tx) == nvml::kSuccess) pcie_[i].second = tx * 1024.0;
      }
      g.pcie_rx_bytes_per_s = pcie_[i].first;
      g.pcie_tx_bytes_per_s = pcie_[i].second;
      read_nvlink(i, d, now, g);
    }
    return out;
  }
  [[nodiscard]] std::string source() const override { return "nvml"; }

 private:
  void read_memory(nvml::Device d, WatchGpu& g) const {
    if (a_.memory_v2 != nullptr) {
      nvml::MemoryV2 m{};
      m.version = nvml::kMemoryV2Version;
      auto rc = a_.memory_v2(d, &m);
      if (rc == nvml::kSuccess) {
        g.mem_used_bytes = m.used;
        g.mem_total_bytes = m.total;
        return;
      }
      // Only a version problem falls back to v1 (as the GPU collector does).
      if (rc != nvml::kErrorFunctionNotFound && rc != nvml::kErrorArgumentVersionMismatch) return;
    }
    nvml::MemoryV1 m{};
    if (a_.memory_v1 != nullptr && a_.memory_v1(d, &m) == nvml::kSuccess) {
      g.mem_used_bytes = m.used;  // includes reserved on v1
      g.mem_total_bytes = m.total;
    }
  }

  void read_temperature(nvml::Device d, WatchGpu& g) const {
    if (a_.temperature_v != nullptr) {
      nvml::TemperatureV1 t{};
      t.version = nvml::kTemperatureV1Version;
      t.sensorType = nvml::kTemperatureGpu;
      if (a_.temperature_v(d, &t) == nvml::kSuccess) {
        g.temperature_c = t.temperature;
        return;
      }
    }
    unsigned int t = 0;
    if (a_.temperature_v1 != nullptr && a_.temperature_v1(d, nvml::kTemperatureGpu, &t) == nvml::kSuccess)
      g.temperature_c = t;
  }

  // Both NVLink counters in one call, summed over all links (scope UINT_MAX). GPUs without NVLink
  // answer NOT_SUPPORTED per field; after that answer the GPU is not asked again.
  void read_nvlink(std::size_t i, nvml::Device d, std::chrono::steady_clock::time_point now, WatchGpu& g) {
    if (a_.field_values == nullptr || nvlink_[i].unsupported) return;
    nvml::FieldValue f[2] = {};
    f[0].fieldId = nvml::kFiNvLinkThroughputDataRx;
    f[1].fieldId = nvml::kFiNvLinkThroughputDataTx;
    f[0].scopeId = f[1].scopeId = nvml::kScopeAllLinks;
    if (a_.field_values(d, 2, f) != nvml::kSuccess) return;
    NvLinkReading r;
    r.rx_kib = counter(f[0]);
    r.tx_kib = counter(f[1]);
    if (!r.rx_kib && !r.tx_kib) {
      if (f[0].nvmlReturn == nvml::kErrorNotSupported && f[1].nvmlReturn == nvml::kErrorNotSupported) {
        nvlink_[i].unsupported = true;
      }
      return;
    }
    // NVML stamps each value (µs since 1970); the steady clock stands in when it does not.
    long long stamp = f[0].timestamp > 0 ? f[0].timestamp : f[1].timestamp;
    r.t_s =
        stamp > 0 ? static_cast<double>(stamp) / 1e6 : std::chrono::duration<double>(now.time_since_epoch()).count();
    bool stamped = stamp > 0;
    NvLinkState& st = nvlink_[i];
    if (st.last && st.last->second == stamped) {
      double dt = r.t_s - st.last->first.t_s;
      if (stamped && dt == 0) {
        // NVML answered from its cache (same timestamp): the last rate still holds; keep the older base.
        g.nvlink_rx_bytes_per_s = st.rx_rate;
        g.nvlink_tx_bytes_per_s = st.tx_rate;
        return;
      }
      g.nvlink_rx_bytes_per_s = st.rx_rate = kib_rate(st.last->first.rx_kib, r.rx_kib, dt);
      g.nvlink_tx_bytes_per_s = st.tx_rate = kib_rate(st.last->first.tx_kib, r.tx_kib, dt);
    }
    st.last = std::make_pair(r, stamped);
  }

  struct NvLinkState {
    bool unsupported = false;
    std::optional<std::pair<NvLinkReading, bool>> last;  // reading, whether it was NVML-stamped
    std::optional<double> rx_rate, tx_rate;              // the last rates, for cached answers
  };

  std::shared_ptr<const NvmlLibrary> lib_;
  const NvmlApi& a_;
  std::vector<nvml::Device> devs_;
  std::vector<WatchGpu> ids_;
  double pcie_every_;
  std::optional<std::chrono::steady_clock::time_point> pcie_read_;
  std::vector<std::pair<std::optional<double>, std::optional<double>>> pcie_;
  std::vector<NvLinkState> nvlink_;
};

std::string read_string(nvml::fn::DevString f, nvml::Device d) {
  if (f == nullptr) return {};
  char buf[nvml::kUuidBufferSize > nvml::kNameBufferSize ? nvml::kUuidBufferSize : nvml::kNameBufferSize] = {};
  if (f(d, buf, sizeof buf) != nvml::kSuccess) return {};
  buf[sizeof buf - 1] = '\0';
  return buf;
}

}  // namespace

Result<std::unique_ptr<GpuSampler>> open_nvml_sampler(const std::string& lib, double pcie_every_s) {
  auto opened = NvmlLibrary::open(lib);
  if (!opened) return opened.error();
  std::shared_ptr<const NvmlLibrary> l = *opened;
  const NvmlApi& a = l->api();
  if (a.shutdown == nullptr) return make_error(ErrorKind::unsupported, l->path() + " lacks nvmlShutdown");
  auto list = nvml_devices(*l);
  if (!list) return list.error();
  if (!list->count_error.empty()) {
    a.shutdown();
    return make_error(ErrorKind::unsupported, list->count_error);
  }
  std::vector<nvml::Device> devs;
  std::vector<WatchGpu> ids;
  for (const NvmlDevice& nd : list->devices) {
    if (nd.handle == nullptr) continue;  // no permission, lost: not watchable
    WatchGpu g;
    g.uuid = read_string(a.uuid, nd.handle);
    g.name = read_string(a.name, nd.handle);
    g.bus_id = normalise_bus_id(nd.bus_id).value_or("");
    if (g.bus_id.empty()) g.bus_id = "nvml-index-" + std::to_string(nd.index);
    devs.push_back(nd.handle);
    ids.push_back(std::move(g));
  }
  if (devs.empty()) {
    a.shutdown();
    return make_error(ErrorKind::absent, "NVML reports no accessible GPU");
  }
  return std::unique_ptr<GpuSampler>(new NvmlSampler(std::move(l), std::move(devs), std::move(ids), pcie_every_s));
}

}  // namespace plumb::watch
