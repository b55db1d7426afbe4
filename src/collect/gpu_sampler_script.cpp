// A GpuSampler whose values follow a script: time-varying GPUs for tests, demos and benchmarks
// on machines without NVIDIA hardware (`plumb watch --gpu-script FILE`).
#include <cmath>

#include "core/json.h"
#include "collect/gpu_sampler.h"
#include "core/text.h"

namespace plumb::watch {

namespace {

template <class T>
std::optional<T> at_tick(const std::vector<T>& series, std::size_t tick) {
  if (series.empty()) return std::nullopt;
  return series[tick % series.size()];
}

class ScriptedSampler final : public GpuSampler {
 public:
  ScriptedSampler(std::vector<GpuScript> gpus, std::string source) : gpus_(std::move(gpus)), source_(std::move(source)) {}
  std::vector<WatchGpu> sample() override {
    std::vector<WatchGpu> out;
    for (const auto& s : gpus_) {
      WatchGpu g;
      g.uuid = s.uuid;
      g.bus_id = s.bus_id;
      g.name = s.name;
      g.busy_pct = at_tick(s.busy_pct, tick_);
      if (auto m = at_tick(s.mem_used_bytes, tick_)) g.mem_used_bytes = static_cast<std::uint64_t>(std::max(0.0, *m));
      if (s.mem_total_bytes > 0) g.mem_total_bytes = s.mem_total_bytes;
      g.temperature_c = at_tick(s.temperature_c, tick_);
      g.power_w = at_tick(s.power_w, tick_);
      g.sm_clock_mhz = at_tick(s.sm_clock_mhz, tick_);
      g.clock_event_reasons = at_tick(s.clock_event_reasons, tick_);
      g.pcie_rx_bytes_per_s = at_tick(s.pcie_rx_bytes_per_s, tick_);
      g.pcie_tx_bytes_per_s = at_tick(s.pcie_tx_bytes_per_s, tick_);
      g.nvlink_rx_bytes_per_s = at_tick(s.nvlink_rx_bytes_per_s, tick_);
      g.nvlink_tx_bytes_per_s = at_tick(s.nvlink_tx_bytes_per_s, tick_);
      out.push_back(std::move(g));
    }
    ++tick_;
    return out;
  }
  [[nodiscard]] std::string source() const override { return source_; }

 private:
  std::vector<GpuScript> gpus_;
  std::string source_;
  std::size_t tick_ = 0;
};

template <class T>
bool read_series(const json& g, const char* key, std::vector<T>& out, std::string& err) {
  if (!g.contains(key)) return true;
  const json& a = g.at(key);
  if (!a.is_array()) {
    err = std::string(key) + " is not an array";
    return false;
  }
  for (const auto& v : a) {
    if (!v.is_number() || (std::is_unsigned_v<T> && !v.is_number_unsigned()) ||
        (!std::is_unsigned_v<T> && !(std::fabs(v.get<double>()) < 1e18))) {
      err = std::string(key) + " holds a non-number";
      return false;
    }
    out.push_back(v.get<T>());
  }
  return true;
}

}  // namespace

std::unique_ptr<GpuSampler> make_scripted_sampler(std::vector<GpuScript> gpus, std::string source) {
  return std::make_unique<ScriptedSampler>(std::move(gpus), std::move(source));
}

Result<std::vector<GpuScript>> parse_gpu_script(const std::string& text, const std::string& origin) {
  auto parsed = parse_outside_json(text);
  if (!parsed) return make_error(ErrorKind::invalid, origin + ": " + parsed.error().message);
  const json& doc = *parsed;
  if (!doc.is_object() || !doc.contains("gpus") || !doc["gpus"].is_array()) {
    return make_error(ErrorKind::invalid, origin + ": not a GPU script (expected {\"gpus\": [...]})");
  }
  std::vector<GpuScript> out;
  std::size_t i = 0;
  try {
  for (const auto& g : doc["gpus"]) {
    if (!g.is_object()) return make_error(ErrorKind::invalid, origin + ": gpus[" + std::to_string(i) + "] is not an object");
    GpuScript s;
    s.uuid = g.value("uuid", "GPU-script-" + std::to_string(i));
    s.bus_id = g.value("bus_id", "0000:00:00." + std::to_string(i));
    s.name = g.value("name", std::string("scripted GPU"));
    if (g.contains("mem_total_bytes") && g["mem_total_bytes"].is_number_unsigned()) s.mem_total_bytes = g["mem_total_bytes"].get<std::uint64_t>();
    std::string err;
    bool ok = read_series(g, "busy_pct", s.busy_pct, err) && read_series(g, "mem_used_bytes", s.mem_used_bytes, err) &&
              read_series(g, "temperature_c", s.temperature_c, err) && read_series(g, "power_w", s.power_w, err) &&
              read_series(g, "sm_clock_mhz", s.sm_clock_mhz, err) &&
              read_series(g, "pcie_rx_bytes_per_s", s.pcie_rx_bytes_per_s, err) &&
              read_series(g, "pcie_tx_bytes_per_s", s.pcie_tx_bytes_per_s, err) &&
              read_series(g, "nvlink_rx_bytes_per_s", s.nvlink_rx_bytes_per_s, err) &&
              read_series(g, "nvlink_tx_bytes_per_s", s.nvlink_tx_bytes_per_s, err) &&
              read_series(g, "clock_event_reasons", s.clock_event_reasons, err);
    if (!ok) return make_error(ErrorKind::invalid, concat(origin, ": gpus[", std::to_string(i), "]: ", err));
    out.push_back(std::move(s));
    ++i;
  }
  } catch (const std::exception& e) {
    // A field of the wrong type (a number where a name belongs): one line naming it.
    return make_error(ErrorKind::invalid, origin + ": gpus[" + std::to_string(i) + "]: " + e.what());
  }
  if (out.empty()) return make_error(ErrorKind::invalid, origin + ": the script lists no GPU");
  return out;
}

}  // namespace plumb::watch
