// Facts of the GPU layer: NVML devices, driver, CUDA libraries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

struct GpuPcie {
  Fact<int> gen_current;   // nvmlDeviceGetCurrPcieLinkGeneration (drops when idle)
  Fact<int> gen_max;       // nvmlDeviceGetMaxPcieLinkGeneration: GPU and slot together
  Fact<int> gen_gpu_max;   // nvmlDeviceGetGpuMaxPcieLinkGeneration: the GPU alone (R525+)
  Fact<int> width_current; // lanes
  Fact<int> width_max;     // lanes, GPU and slot together
  bool operator==(const GpuPcie&) const = default;
};
PLUMB_JSON(GpuPcie, gen_current, gen_max, gen_gpu_max, width_current, width_max)

struct GpuEcc {
  Fact<bool> enabled;              // nvmlDeviceGetEccMode current
  Fact<bool> pending_enabled;      // ... pending (differs from current until reboot)
  Fact<std::uint64_t> volatile_corrected;
  Fact<std::uint64_t> volatile_uncorrected;
  Fact<std::uint64_t> aggregate_corrected;
  Fact<std::uint64_t> aggregate_uncorrected;
  bool operator==(const GpuEcc&) const = default;
};
PLUMB_JSON(GpuEcc, enabled, pending_enabled, volatile_corrected, volatile_uncorrected, aggregate_corrected,
           aggregate_uncorrected)

struct GpuMemoryHealth {
  Fact<int> retired_single_bit;   // pages retired for multiple single-bit errors
  Fact<int> retired_double_bit;   // pages retired for a double-bit error
  Fact<bool> retired_pending;     // retirement waits for a reboot / driver reload
  Fact<int> remapped_correctable; // rows remapped (Ampere+)
  Fact<int> remapped_uncorrectable;
  Fact<bool> remap_pending;
  Fact<bool> remap_failure;
  bool operator==(const GpuMemoryHealth&) const = default;
};
PLUMB_JSON(GpuMemoryHealth, retired_single_bit, retired_double_bit, retired_pending, remapped_correctable,
           remapped_uncorrectable, remap_pending, remap_failure)

struct GpuProcess {
  int pid = 0;
  std::optional<std::uint64_t> used_memory_bytes;  // absent when NVML says "not available"
  std::string name;                                // /proc/<pid>/comm when readable
  bool operator==(const GpuProcess&) const = default;
};
PLUMB_JSON(GpuProcess, pid, used_memory_bytes, name)

// The far end of one active NVLink: another GPU's PCI bus id, or an NVSwitch.
struct GpuNvLinkPeer {
  unsigned link = 0;
  std::string remote_type;    // gpu | switch | ibmnpu | unknown (when the driver cannot tell)
  std::string remote_bus_id;  // "0000:18:00.0" (normalised); empty when not reported
  bool operator==(const GpuNvLinkPeer&) const = default;
};
PLUMB_JSON(GpuNvLinkPeer, link, remote_type, remote_bus_id)

// Contract used by other areas (topology, watch, framework rules): one entry per GPU, keyed by
// UUID and PCI bus id, never by NVML index.
struct GpuDevice {
  std::string uuid;     // "GPU-…"
  std::string bus_id;   // "0000:3b:00.0", lower-case, domain included (sysfs style)
  std::string name;     // "NVIDIA H100 80GB HBM3"
  int nvml_index = -1;  // informational only: NVML order is neither CUDA order nor stable
  // Why this GPU could not be queried at all (GPU_IS_LOST, NO_PERMISSION...); empty when it could.
  std::string lost;
  Fact<int> minor_number;               // /dev/nvidia<minor>
  Fact<std::string> vbios;
  Fact<std::uint64_t> memory_total;     // bytes
  Fact<std::uint64_t> memory_used;      // bytes; excludes reserved with the v2 call
  Fact<std::uint64_t> memory_reserved;  // bytes (v2 call only)
  Fact<int> util_gpu;                   // % of time a kernel ran
  Fact<int> util_memory;                // % of time memory was read or written
  Fact<int> temperature_c;
  Fact<int> temp_slowdown_c;            // nvmlDeviceGetTemperatureThreshold SLOWDOWN
  Fact<int> temp_shutdown_c;
  Fact<int> power_mw;
  Fact<int> power_limit_mw;             // enforced limit
  Fact<int> clock_sm_mhz;
  Fact<int> clock_mem_mhz;
  Fact<int> clock_sm_max_mhz;
  Fact<std::uint64_t> clocks_event_reasons;    // bitmask, see gpu/nvml.h
  Fact<std::uint64_t> supported_event_reasons; // bits this GPU can report
  GpuPcie pcie;
  GpuEcc ecc;
  GpuMemoryHealth mem_health;
  Fact<bool> persistence_mode;
  Fact<std::string> compute_mode;       // Default | Exclusive_Process | Prohibited | ...
  Fact<bool> mig_enabled;
  Fact<bool> mig_pending;
  Fact<std::vector<bool>> nvlink_active;  // one entry per link slot the driver answered for
  Fact<std::vector<GpuNvLinkPeer>> nvlink_peers;  // one entry per active link
  Fact<std::vector<GpuProcess>> processes;
  bool operator==(const GpuDevice&) const = default;
};
PLUMB_JSON(GpuDevice, uuid, bus_id, name, nvml_index, lost, minor_number, vbios, memory_total, memory_used,
           memory_reserved, util_gpu, util_memory, temperature_c, temp_slowdown_c, temp_shutdown_c, power_mw,
           power_limit_mw, clock_sm_mhz, clock_mem_mhz, clock_sm_max_mhz, clocks_event_reasons,
           supported_event_reasons, pcie, ecc, mem_health, persistence_mode, compute_mode, mig_enabled, mig_pending,
           nvlink_active, nvlink_peers, processes)

// nvmlDeviceGetTopologyCommonAncestor for one GPU pair (used by the distributed-layer rules).
struct GpuPairTopology {
  std::string bus_a;
  std::string bus_b;
  Fact<int> level;  // NVML value: 0 internal, 10 single switch (PIX), 20 multiple (PXB), 30 PHB, 40 NODE, 50 SYS
  bool operator==(const GpuPairTopology&) const = default;
};
PLUMB_JSON(GpuPairTopology, bus_a, bus_b, level)

// One copy of a CUDA library found on disk.
struct CudaLibCopy {
  std::string lib;          // cudart | cudnn | nccl | cublas | cuda (the driver API)
  std::string path;         // as found (never root-prefixed)
  std::string real_path;    // symlinks resolved
  // ld.so.cache | LD_LIBRARY_PATH | CUDA_HOME | /usr/local/cuda* | site-packages | process maps |
  // process maps (deleted): mapped by --pid N but gone from disk (replaced while the job runs)
  std::string origin;
  Fact<std::string> version;  // "13.0", "9.13.0", "2.28.3": from the library's own getter, else its file name
  Fact<int> raw_version;      // the getter's integer (13000, 91300, 22803)
  bool loader_pick = false;   // the copy the dynamic loader would load for this soname
  bool mapped = false;        // mapped by --pid N (/proc/N/maps)
  bool operator==(const CudaLibCopy&) const = default;
};
PLUMB_JSON(CudaLibCopy, lib, path, real_path, origin, version, raw_version, loader_pick, mapped)

// deviceQuery-like run through the dlopened driver API (libcuda).
struct CudaDeviceQuery {
  // pass | no_driver | stub_library | insufficient_driver | no_device | error | not_run
  std::string status = "not_run";
  std::string detail;              // "cuInit: CUDA_ERROR_STUB_LIBRARY (34)"
  std::string library;             // which libcuda answered
  Fact<int> driver_version;        // cuDriverGetVersion: 12020
  Fact<int> device_count;
  std::vector<std::string> devices;  // "0000:3b:00.0 NVIDIA H100 80GB HBM3 sm_90 132 SMs: alloc+copy ok"
  // --cuda-context: idle (a context only on GPUs no other process computes on), always, never.
  std::string context_mode;
  int contexts_tested = 0;             // devices whose context, allocation and copy were run
  // The devices left without a context, and why: "0000:3b:00.0: in use by 1 process: pid 4242 (python3, 70.1 GiB)".
  std::vector<std::string> untested;
  bool operator==(const CudaDeviceQuery&) const = default;
};
PLUMB_JSON(CudaDeviceQuery, status, detail, library, driver_version, device_count, devices, context_mode,
           contexts_tested, untested)

struct CudaStackFacts {
  bool collected = false;
  std::vector<CudaLibCopy> copies;
  Fact<std::string> toolkit_version;  // /usr/local/cuda/version.json (nvcc's toolkit)
  CudaDeviceQuery device_query;
  bool pid_maps_read = false;         // copies[].mapped is meaningful
  int pid = 0;                        // the --pid whose maps were read (0: none given)
  std::string pid_maps_why;           // why the maps were not read ("no --pid given", "/proc/N/maps: ...")
  // The loaded NVIDIA kernel module's version, from /proc/driver/nvidia/version ("535.104.05").
  Fact<std::string> kernel_module_version;
  // NVSwitch PCI functions (vendor 0x10de, class 0x0680: /sys/bus/pci/devices/*), and whether an
  // nv-fabricmanager process runs (/proc/*/comm): an NVSwitch system's GPUs wait for it.
  Fact<std::vector<std::string>> nvswitches;
  Fact<bool> fabricmanager_running;
  bool operator==(const CudaStackFacts&) const = default;
};
PLUMB_JSON(CudaStackFacts, collected, copies, toolkit_version, device_query, pid_maps_read, pid, pid_maps_why,
           kernel_module_version, nvswitches, fabricmanager_running)

struct GpuFacts {
  bool collected = false;
  // Why the GPU layer could not be read ("libnvidia-ml.so.1 not found: no NVIDIA driver"); empty when it was.
  std::string unavailable;
  // An NVML call that did not return before the deadline ("nvmlDeviceGetPowerUsage(gpu 0000:3b:00.0)").
  std::string stalled_call;
  std::string nvml_library;               // the library that was loaded
  std::vector<std::string> nvml_symbols;  // resolved entry points ("nvmlDeviceGetCount_v2")
  Fact<std::string> driver_version;       // "535.161.08"
  Fact<int> cuda_driver_version;          // nvmlSystemGetCudaDriverVersion: 12020 for 12.2
  Fact<std::string> nvml_version;
  Fact<int> device_count;                 // what NVML counted (lost GPUs included)
  std::vector<GpuDevice> devices;
  std::vector<GpuPairTopology> topology;
  Fact<bool> persistenced_running;        // an nvidia-persistenced process is alive
  CudaStackFacts cuda;
  bool operator==(const GpuFacts&) const = default;
};
PLUMB_JSON(GpuFacts, collected, unavailable, stalled_call, nvml_library, nvml_symbols, driver_version,
           cuda_driver_version, nvml_version, device_count, devices, topology, persistenced_running, cuda)

}  // namespace plumb
