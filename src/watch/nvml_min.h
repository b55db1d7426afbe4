// The handful of NVML declarations `plumb watch` needs, written by hand from
// shared/knowledge/nvml-api.md (sections 2-4; NVML 13.3.29 header via NVIDIA/go-nvml), never
// copied from nvml.h. Loaded with dlopen; every symbol but init/count/handle/shutdown is optional.
#pragma once

#include <cstddef>

namespace plumb::watch::nvml {

using Return = int;  // nvmlReturn_t: a 4-byte C enum
constexpr Return kSuccess = 0;
constexpr Return kNotSupported = 3;
using Device = struct DeviceSt*;  // nvmlDevice_t: opaque handle

constexpr unsigned kTemperatureGpu = 0;    // NVML_TEMPERATURE_GPU
constexpr unsigned kClockSm = 1;           // NVML_CLOCK_SM (nvmlClockType_t: GRAPHICS 0, SM 1, MEM 2, VIDEO 3)
constexpr unsigned kPcieTxBytes = 0;       // NVML_PCIE_UTIL_TX_BYTES
constexpr unsigned kPcieRxBytes = 1;       // NVML_PCIE_UTIL_RX_BYTES
constexpr std::size_t kUuidBufferSize = 96;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE
constexpr std::size_t kNameBufferSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE

// nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3 (sizeof 68, busId at 36).
struct PciInfo {
  char bus_id_legacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pci_device_id;
  unsigned pci_subsystem_id;
  char bus_id[32];
};
static_assert(sizeof(PciInfo) == 68, "nvmlPciInfo_t is 68 bytes");
static_assert(offsetof(PciInfo, bus_id) == 36, "nvmlPciInfo_t.busId is at offset 36");

// nvmlMemory_t (v1): total, free, used in bytes.
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
static_assert(sizeof(Memory) == 24, "nvmlMemory_t is 24 bytes");

// nvmlUtilization_t: percent of the sample period a kernel ran / memory was read or written.
struct Utilization {
  unsigned gpu;
  unsigned memory;
};
static_assert(sizeof(Utilization) == 8, "nvmlUtilization_t is 8 bytes");

using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using GetCountFn = Return (*)(unsigned*);
using GetHandleByIndexFn = Return (*)(unsigned, Device*);
using GetStringFn = Return (*)(Device, char*, unsigned);  // UUID, name
using GetPciInfoFn = Return (*)(Device, PciInfo*);
using GetUtilizationFn = Return (*)(Device, Utilization*);
using GetMemoryFn = Return (*)(Device, Memory*);
using GetTemperatureFn = Return (*)(Device, unsigned, unsigned*);
using GetUintFn = Return (*)(Device, unsigned*);                  // power (mW)
using GetClockInfoFn = Return (*)(Device, unsigned, unsigned*);   // MHz
using GetReasonsFn = Return (*)(Device, unsigned long long*);
using GetPcieThroughputFn = Return (*)(Device, unsigned, unsigned*);  // KB/s

}  // namespace plumb::watch::nvml
