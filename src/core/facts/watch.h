// Facts of `plumb watch`: the time series sampled during a run, one WatchSample per tick.
// Rates and percentages are derived from counter deltas between two ticks, so the first sample of
// a run has none of them (std::nullopt, never 0).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

// One GPU at one tick, keyed by UUID and PCI bus id (never by NVML index).
struct WatchGpu {
  std::string uuid;
  std::string bus_id;  // "0000:3b:00.0"
  std::string name;
  std::optional<double> busy_pct;            // nvmlDeviceGetUtilizationRates .gpu
  std::optional<double> mem_busy_pct;        // .memory (memory controller busy)
  std::optional<std::uint64_t> mem_used_bytes;
  std::optional<std::uint64_t> mem_total_bytes;
  std::optional<double> temperature_c;
  std::optional<double> power_w;
  std::optional<double> sm_clock_mhz;
  std::optional<std::uint64_t> clock_event_reasons;  // NVML clocks event (throttle) reason bits
  std::optional<double> pcie_rx_bytes_per_s;
  std::optional<double> pcie_tx_bytes_per_s;
  // NVLink data throughput summed over the GPU's links, from the cumulative NVML field counters
  // (NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX/TX) between two ticks; absent without NVLink.
  std::optional<double> nvlink_rx_bytes_per_s;
  std::optional<double> nvlink_tx_bytes_per_s;
  bool operator==(const WatchGpu&) const = default;
};
PLUMB_JSON(WatchGpu, uuid, bus_id, name, busy_pct, mem_busy_pct, mem_used_bytes, mem_total_bytes, temperature_c,
           power_w, sm_clock_mhz, clock_event_reasons, pcie_rx_bytes_per_s, pcie_tx_bytes_per_s,
           nvlink_rx_bytes_per_s, nvlink_tx_bytes_per_s)

struct WatchDisk {
  std::string name;  // "nvme0n1"
  std::optional<double> read_bytes_per_s;
  std::optional<double> write_bytes_per_s;
  bool operator==(const WatchDisk&) const = default;
};
PLUMB_JSON(WatchDisk, name, read_bytes_per_s, write_bytes_per_s)

struct WatchNet {
  std::string name;  // "eth0"
  std::optional<double> rx_bytes_per_s;
  std::optional<double> tx_bytes_per_s;
  bool operator==(const WatchNet&) const = default;
};
PLUMB_JSON(WatchNet, name, rx_bytes_per_s, tx_bytes_per_s)

struct WatchSample {
  double t_s = 0;  // seconds since the watch started
  // Host CPU from /proc/stat deltas: busy = not idle and not iowait.
  std::optional<double> cpu_busy_pct;
  std::optional<double> cpu_iowait_pct;
  std::vector<double> core_busy_pct;  // index = cpuN; empty on the first sample
  // Host memory from /proc/meminfo: used = MemTotal - MemAvailable.
  std::optional<std::uint64_t> mem_used_bytes;
  std::optional<std::uint64_t> mem_total_bytes;
  // Pressure stall information: share of wall time stalled between two ticks (from `total` deltas).
  std::optional<double> psi_cpu_some_pct;
  std::optional<double> psi_mem_some_pct;
  std::optional<double> psi_mem_full_pct;
  std::optional<double> psi_io_some_pct;
  std::optional<double> psi_io_full_pct;
  std::vector<WatchDisk> disks;
  std::vector<WatchNet> nets;
  // The target process (--pid): alive, CPU (100 % = one core), resident memory, threads.
  std::optional<bool> proc_running;
  std::optional<double> proc_cpu_pct;
  std::optional<std::uint64_t> proc_rss_bytes;
  std::optional<int> proc_threads;
  std::vector<WatchGpu> gpus;
  bool operator==(const WatchSample&) const = default;
};
PLUMB_JSON(WatchSample, t_s, cpu_busy_pct, cpu_iowait_pct, core_busy_pct, mem_used_bytes, mem_total_bytes,
           psi_cpu_some_pct, psi_mem_some_pct, psi_mem_full_pct, psi_io_some_pct, psi_io_full_pct, disks, nets,
           proc_running, proc_cpu_pct, proc_rss_bytes, proc_threads, gpus)

struct WatchFacts {
  bool collected = false;  // true when `plumb watch` (or a replayed recording) filled this
  double interval_s = 0;
  std::string started_at;  // ISO 8601 UTC
  int target_pid = 0;      // 0: no --pid
  std::string gpu_source;       // "nvml", "script:<file>", or empty when no GPU was sampled
  std::string gpu_unavailable;  // why GPUs were not sampled ("libnvidia-ml.so.1 not found ...")
  std::vector<std::string> unreadable;  // host sources that could not be read, with the reason
  std::uint64_t samples_dropped = 0;    // oldest samples dropped from the bounded ring
  std::vector<WatchSample> samples;
  bool operator==(const WatchFacts&) const = default;
};
PLUMB_JSON(WatchFacts, collected, interval_s, started_at, target_pid, gpu_source, gpu_unavailable, unreadable,
           samples_dropped, samples)

}  // namespace plumb
