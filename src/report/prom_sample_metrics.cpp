// Telemetry gauges following Prometheus naming: base units (bytes, seconds, hertz, celsius,
// watts), ratios in 0..1, one label set per GPU keyed by PCI bus id and UUID.
#include "report/prom_sample_metrics.h"

#include "core/knowledge/throttle.h"

namespace plumb::watch {

namespace {

template <class T>
void put(prom::Exposition& out, const char* name, const prom::Labels& l, const std::optional<T>& v, double scale = 1.0) {
  if (v) out.gauge(name, std::string("prom.help.") + name, l, static_cast<double>(*v) * scale);
}

}  // namespace

void add_sample_metrics(prom::Exposition& out, const WatchFacts& w, const WatchSample& s) {
  for (const auto& g : s.gpus) {
    prom::Labels l{{"gpu", g.bus_id}, {"uuid", g.uuid}, {"name", g.name}};
    put(out, "plumb_gpu_busy_ratio", l, g.busy_pct, 0.01);
    put(out, "plumb_gpu_memory_busy_ratio", l, g.mem_busy_pct, 0.01);
    put(out, "plumb_gpu_memory_used_bytes", l, g.mem_used_bytes);
    put(out, "plumb_gpu_memory_total_bytes", l, g.mem_total_bytes);
    put(out, "plumb_gpu_temperature_celsius", l, g.temperature_c);
    put(out, "plumb_gpu_power_watts", l, g.power_w);
    put(out, "plumb_gpu_sm_clock_hertz", l, g.sm_clock_mhz, 1e6);
    put(out, "plumb_gpu_pcie_rx_bytes_per_second", l, g.pcie_rx_bytes_per_s);
    put(out, "plumb_gpu_pcie_tx_bytes_per_second", l, g.pcie_tx_bytes_per_s);
    put(out, "plumb_gpu_nvlink_rx_bytes_per_second", l, g.nvlink_rx_bytes_per_s);
    put(out, "plumb_gpu_nvlink_tx_bytes_per_second", l, g.nvlink_tx_bytes_per_s);
    if (g.clock_event_reasons) {
      out.gauge("plumb_gpu_clock_event_reasons", "prom.help.plumb_gpu_clock_event_reasons", l,
                static_cast<double>(*g.clock_event_reasons));
      for (const auto& r : clock_event_reasons()) {
        if (!r.throttle) continue;
        const std::uint64_t bit = r.bit;
        const char* reason = r.key;
        prom::Labels lr{{"gpu", g.bus_id}, {"uuid", g.uuid}, {"reason", reason}};
        out.gauge("plumb_gpu_throttled", "prom.help.plumb_gpu_throttled", lr, (*g.clock_event_reasons & bit) != 0 ? 1 : 0);
      }
    }
  }
  prom::Labels host{};
  put(out, "plumb_host_cpu_busy_ratio", host, s.cpu_busy_pct, 0.01);
  put(out, "plumb_host_cpu_iowait_ratio", host, s.cpu_iowait_pct, 0.01);
  for (std::size_t c = 0; c < s.core_busy_pct.size(); ++c) {
    out.gauge("plumb_host_cpu_core_busy_ratio", "prom.help.plumb_host_cpu_core_busy_ratio", {{"cpu", std::to_string(c)}},
              s.core_busy_pct[c] * 0.01);
  }
  put(out, "plumb_host_memory_used_bytes", host, s.mem_used_bytes);
  put(out, "plumb_host_memory_total_bytes", host, s.mem_total_bytes);
  auto psi = [&](const char* resource, const char* kind, const std::optional<double>& v) {
    if (v) out.gauge("plumb_host_pressure_stalled_ratio", "prom.help.plumb_host_pressure_stalled_ratio",
                     {{"resource", resource}, {"kind", kind}}, *v * 0.01);
  };
  psi("cpu", "some", s.psi_cpu_some_pct);
  psi("memory", "some", s.psi_mem_some_pct);
  psi("memory", "full", s.psi_mem_full_pct);
  psi("io", "some", s.psi_io_some_pct);
  psi("io", "full", s.psi_io_full_pct);
  for (const auto& d : s.disks) {
    put(out, "plumb_host_disk_read_bytes_per_second", {{"device", d.name}}, d.read_bytes_per_s);
    put(out, "plumb_host_disk_written_bytes_per_second", {{"device", d.name}}, d.write_bytes_per_s);
  }
  for (const auto& n : s.nets) {
    put(out, "plumb_host_network_receive_bytes_per_second", {{"interface", n.name}}, n.rx_bytes_per_s);
    put(out, "plumb_host_network_transmit_bytes_per_second", {{"interface", n.name}}, n.tx_bytes_per_s);
  }
  if (w.target_pid > 0) {
    prom::Labels p{{"pid", std::to_string(w.target_pid)}};
    if (s.proc_running) out.gauge("plumb_process_running", "prom.help.plumb_process_running", p, *s.proc_running ? 1 : 0);
    put(out, "plumb_process_cpu_ratio", p, s.proc_cpu_pct, 0.01);
    put(out, "plumb_process_resident_memory_bytes", p, s.proc_rss_bytes);
    put(out, "plumb_process_threads", p, s.proc_threads);
  }
}

}  // namespace plumb::watch
