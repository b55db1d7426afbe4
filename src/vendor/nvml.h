// Our own NVML declarations, written from the NVML API reference (docs.nvidia.com/deploy/nvml-api)
// and checked against NVIDIA's published nvml.h; NVIDIA's nvml.h is not vendored. References below:
//   [H13]         NVML 13.3.29 nvml.h, NVIDIA/go-nvml gen/nvml/nvml.h @2f9e261f (line numbers)
//   [DCGM-EP]     NVIDIA/DCGM sdk/nvidia/nvml/nvml_entry_points.h @72fa3fea
//   [ISSUE-MEMV2] NVIDIA/nvidia-settings#78: nvmlMemory_v2_t.version is the macro value, not 2
// Sizes and offsets are pinned with static_assert so a layout slip cannot go unnoticed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/knowledge/throttle.h"

namespace plumb::nvml {

// nvmlReturn_t is a 4-byte C enum; an int keeps unknown future codes representable.
using Return = int;
using Device = struct nvmlDevice_st*;  // opaque handle

inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorInvalidArgument = 2;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNoPermission = 4;
inline constexpr Return kErrorNotFound = 6;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorDriverNotLoaded = 9;
inline constexpr Return kErrorTimeout = 10;
inline constexpr Return kErrorLibraryNotFound = 12;
inline constexpr Return kErrorFunctionNotFound = 13;
inline constexpr Return kErrorGpuIsLost = 15;
inline constexpr Return kErrorResetRequired = 16;
inline constexpr Return kErrorLibRmVersionMismatch = 18;
inline constexpr Return kErrorArgumentVersionMismatch = 25;
inline constexpr Return kErrorUnknown = 999;

// "NVML_ERROR_NOT_SUPPORTED" for a code; "NVML_ERROR_UNKNOWN(<n>)" style text for codes we do not know.
const char* return_name(Return r);
// Short human text ("not supported by this GPU or driver").
const char* return_meaning(Return r);
// Inverse of return_name, accepting "NOT_SUPPORTED" or "NVML_ERROR_NOT_SUPPORTED"; -1 when unknown.
Return return_from_name(const char* name);

// Buffer sizes ([H13] 4075-4105, 165): size for the V2 constants.
inline constexpr unsigned kDriverVersionBufferSize = 80;
inline constexpr unsigned kNameBufferSize = 96;
inline constexpr unsigned kUuidBufferSize = 96;
inline constexpr unsigned kVbiosBufferSize = 32;
inline constexpr unsigned kBusIdBufferSize = 32;
// NVML_NVLINK_MAX_LINKS changed 12 -> 18 -> 36: loop up to a generous cap instead.
inline constexpr unsigned kNvLinkScanCap = 64;
// nvmlIntNvLinkDeviceType_t: what the far end of an NVLink is.
inline constexpr int kNvLinkDeviceGpu = 0x00;
inline constexpr int kNvLinkDeviceIbmNpu = 0x01;
inline constexpr int kNvLinkDeviceSwitch = 0x02;

enum : int { kFeatureDisabled = 0, kFeatureEnabled = 1 };
enum : int { kTemperatureGpu = 0 };
enum : int { kThresholdShutdown = 0, kThresholdSlowdown = 1 };  // nvmlTemperatureThresholds_t
enum : int { kClockGraphics = 0, kClockSm = 1, kClockMem = 2 };  // nvmlClockType_t
enum : int { kMemoryErrorCorrected = 0, kMemoryErrorUncorrected = 1 };
enum : int { kVolatileEcc = 0, kAggregateEcc = 1 };
enum : int { kRetiredMultipleSingleBit = 0, kRetiredDoubleBit = 1 };
// nvmlComputeMode_t: 1 (exclusive thread) is deprecated but can still be reported.
// The driver API's CUcomputemode (cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE)) has the same values.
enum : int { kComputeDefault = 0, kComputeExclusiveThread = 1, kComputeProhibited = 2, kComputeExclusiveProcess = 3 };
// "Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process" (nvidia-smi's words), else "mode N".
inline std::string compute_mode_name(int m) {
  static constexpr const char* kNames[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
  return (m >= 0 && m <= 3) ? kNames[m] : "mode " + std::to_string(m);
}

// Clocks event (throttle) reason bits: the one table is core/knowledge/throttle.h.
inline constexpr std::uint64_t kReasonGpuIdle = clock_event::kGpuIdle;
inline constexpr std::uint64_t kReasonSwPowerCap = clock_event::kSwPowerCap;
inline constexpr std::uint64_t kReasonHwSlowdown = clock_event::kHwSlowdown;
inline constexpr std::uint64_t kReasonSwThermal = clock_event::kSwThermal;
inline constexpr std::uint64_t kReasonHwThermal = clock_event::kHwThermal;
inline constexpr std::uint64_t kReasonHwPowerBrake = clock_event::kHwPowerBrake;

// nvmlPciInfo_t as taken by nvmlDeviceGetPciInfo_v3 ([H13] 196-208).
struct PciInfo {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;     // device id << 16 | vendor id (0x10de)
  unsigned int pciSubSystemId;
  char busId[kBusIdBufferSize];  // "%08X:%02X:%02X.0"
};
static_assert(sizeof(PciInfo) == 68);
static_assert(offsetof(PciInfo, domain) == 16);
static_assert(offsetof(PciInfo, pciDeviceId) == 28);
static_assert(offsetof(PciInfo, busId) == 36);

struct MemoryV1 {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;  // includes reserved
};
static_assert(sizeof(MemoryV1) == 24);

struct MemoryV2 {
  unsigned int version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;  // excludes reserved
};
static_assert(sizeof(MemoryV2) == 40);
static_assert(offsetof(MemoryV2, total) == 8);
static_assert(offsetof(MemoryV2, used) == 32);

struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};
static_assert(sizeof(Utilization) == 8);

struct TemperatureV1 {
  unsigned int version;
  int sensorType;
  int temperature;  // signed in the V API
};
static_assert(sizeof(TemperatureV1) == 12);

struct ProcessInfoV1 {
  unsigned int pid;
  unsigned long long usedGpuMemory;
};
static_assert(sizeof(ProcessInfoV1) == 16);
static_assert(offsetof(ProcessInfoV1, usedGpuMemory) == 8);

struct ProcessInfoV2 {  // also the element of _v3
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
static_assert(sizeof(ProcessInfoV2) == 24);
static_assert(offsetof(ProcessInfoV2, gpuInstanceId) == 16);

inline constexpr unsigned long long kValueNotAvailable = ~0ULL;  // NVML_VALUE_NOT_AVAILABLE as unsigned

// NVML_STRUCT_VERSION(data, ver) = sizeof | ver << 24 ([H13] 141). Never the literal 2 [ISSUE-MEMV2].
template <class T>
constexpr unsigned int struct_version(unsigned int ver) {
  return static_cast<unsigned int>(sizeof(T)) | (ver << 24);
}
inline constexpr unsigned int kMemoryV2Version = struct_version<MemoryV2>(2);
inline constexpr unsigned int kTemperatureV1Version = struct_version<TemperatureV1>(1);
static_assert(kMemoryV2Version == 0x02000028);
static_assert(kTemperatureV1Version == 0x0100000C);

// CUDA driver version 1000*major + 10*minor ([H13] 4250).
constexpr int cuda_major(int v) { return v / 1000; }
constexpr int cuda_minor(int v) { return (v % 1000) / 10; }

// Entry-point signatures (argument lists as in [DCGM-EP]).
namespace fn {
using Init = Return (*)();
using Shutdown = Return (*)();
using ErrorString = const char* (*)(Return);
using GetString = Return (*)(char*, unsigned int);
using GetInt = Return (*)(int*);
using GetCount = Return (*)(unsigned int*);
using GetHandleByIndex = Return (*)(unsigned int, Device*);
using DevString = Return (*)(Device, char*, unsigned int);
using DevUint = Return (*)(Device, unsigned int*);
using DevUll = Return (*)(Device, unsigned long long*);
using DevPci = Return (*)(Device, PciInfo*);
using DevMemV1 = Return (*)(Device, MemoryV1*);
using DevMemV2 = Return (*)(Device, MemoryV2*);
using DevUtil = Return (*)(Device, Utilization*);
using DevTempV1 = Return (*)(Device, int, unsigned int*);
using DevTempV = Return (*)(Device, TemperatureV1*);
using DevTempThreshold = Return (*)(Device, int, unsigned int*);
using DevClock = Return (*)(Device, int, unsigned int*);
using DevEnable = Return (*)(Device, int*);
using DevEnablePair = Return (*)(Device, int*, int*);
using DevUintPair = Return (*)(Device, unsigned int*, unsigned int*);
using DevEccCount = Return (*)(Device, int, int, unsigned long long*);
using DevRetiredPages = Return (*)(Device, int, unsigned int*, unsigned long long*);
using DevRemappedRows = Return (*)(Device, unsigned int*, unsigned int*, unsigned int*, unsigned int*);
using DevNvLinkState = Return (*)(Device, unsigned int, int*);
// nvmlDeviceGetNvLinkRemotePciInfo_v2(device, link, nvmlPciInfo_t*) fills the v3 PciInfo layout;
// nvmlDeviceGetNvLinkRemoteDeviceType(device, link, nvmlIntNvLinkDeviceType_t*).
using DevNvLinkRemotePci = Return (*)(Device, unsigned int, PciInfo*);
using DevNvLinkRemoteType = Return (*)(Device, unsigned int, int*);
using DevProcesses = Return (*)(Device, unsigned int*, void*);  // element type depends on the version
using DevTopology = Return (*)(Device, Device, int*);
}  // namespace fn

// nvmlDeviceGetPcieThroughput counters (nvmlPcieUtilCounter_t); the value is KB/s over ~20 ms.
enum : int { kPcieUtilTxBytes = 0, kPcieUtilRxBytes = 1 };

// Field values (nvmlDeviceGetFieldValues; nvmlFieldValue_t and the NVML_FI_* ids as in NVML's
// nvml.h, checked against go-nvml's copy of the 12.x header). The NVLink data throughput fields
// are cumulative KiB counters; scopeId selects a link, UINT_MAX the sum over all links.
inline constexpr unsigned int kFiNvLinkThroughputDataTx = 138;  // NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX
inline constexpr unsigned int kFiNvLinkThroughputDataRx = 139;  // NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX
inline constexpr unsigned int kScopeAllLinks = 0xFFFFFFFFu;
// nvmlValueType_t: which member of Value is set.
enum : int {
  kValueDouble = 0,
  kValueUnsignedInt = 1,
  kValueUnsignedLong = 2,
  kValueUnsignedLongLong = 3,
  kValueSignedLongLong = 4,
  kValueSignedInt = 5,
  kValueUnsignedShort = 6
};
union Value {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  unsigned short usVal;
};
static_assert(sizeof(Value) == 8);
struct FieldValue {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;    // CPU time of the value, microseconds since 1970
  long long latencyUsec;
  int valueType;          // nvmlValueType_t
  Return nvmlReturn;      // per field: value is undefined unless kSuccess
  Value value;
};
static_assert(sizeof(FieldValue) == 40);
static_assert(offsetof(FieldValue, timestamp) == 8);
static_assert(offsetof(FieldValue, valueType) == 24);
static_assert(offsetof(FieldValue, value) == 32);

namespace fn {
using DevPcieThroughput = Return (*)(Device, int, unsigned int*);
using DevFieldValues = Return (*)(Device, int, FieldValue*);
}  // namespace fn

}  // namespace plumb::nvml
