// Names and meanings of nvmlReturn_t values (nvmlReturn_t in the NVML API reference,
// docs.nvidia.com/deploy/nvml-api, and nvml.h).
#include <cstring>
#include <string_view>

#include "vendor/nvml.h"

namespace plumb::nvml {

namespace {
struct Row {
  Return code;
  const char* name;
  const char* meaning;
};
constexpr Row kNvmlErrorsRows[] = {
    {0, "NVML_SUCCESS", "success"},
    {1, "NVML_ERROR_UNINITIALIZED", "NVML was not initialised"},
    {2, "NVML_ERROR_INVALID_ARGUMENT", "invalid argument"},
    {3, "NVML_ERROR_NOT_SUPPORTED", "not supported by this GPU or driver"},
    {4, "NVML_ERROR_NO_PERMISSION", "no permission"},
    {5, "NVML_ERROR_ALREADY_INITIALIZED", "already initialised"},
    {6, "NVML_ERROR_NOT_FOUND", "not found"},
    {7, "NVML_ERROR_INSUFFICIENT_SIZE", "buffer too small"},
    {8, "NVML_ERROR_INSUFFICIENT_POWER", "external power cables not attached properly"},
    {9, "NVML_ERROR_DRIVER_NOT_LOADED", "the NVIDIA kernel driver is not loaded"},
    {10, "NVML_ERROR_TIMEOUT", "timed out"},
    {11, "NVML_ERROR_IRQ_ISSUE", "the kernel detected an interrupt problem with the GPU"},
    {12, "NVML_ERROR_LIBRARY_NOT_FOUND", "a library NVML needs (libcuda) was not found"},
    {13, "NVML_ERROR_FUNCTION_NOT_FOUND", "this driver's NVML lacks the function"},
    {14, "NVML_ERROR_CORRUPTED_INFOROM", "the GPU's infoROM is corrupted"},
    {15, "NVML_ERROR_GPU_IS_LOST", "the GPU fell off the bus or became inaccessible"},
    {16, "NVML_ERROR_RESET_REQUIRED", "the GPU needs a reset"},
    {17, "NVML_ERROR_OPERATING_SYSTEM", "blocked by the operating system or cgroups"},
    {18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH", "NVML library and kernel driver versions differ"},
    {19, "NVML_ERROR_IN_USE", "in use"},
    {20, "NVML_ERROR_MEMORY", "insufficient memory"},
    {21, "NVML_ERROR_NO_DATA", "no data"},
    {22, "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED", "ECC not supported on this vGPU"},
    {23, "NVML_ERROR_INSUFFICIENT_RESOURCES", "insufficient resources"},
    {24, "NVML_ERROR_FREQ_NOT_SUPPORTED", "frequency not supported"},
    {25, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH", "struct version mismatch"},
    {26, "NVML_ERROR_DEPRECATED", "deprecated"},
    {27, "NVML_ERROR_NOT_READY", "not ready"},
    {28, "NVML_ERROR_GPU_NOT_FOUND", "GPU not found"},
    {29, "NVML_ERROR_INVALID_STATE", "invalid state"},
    {30, "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED", "reset type not supported"},
    {999, "NVML_ERROR_UNKNOWN", "unknown error"},
};
}  // namespace

const char* return_name(Return r) {
  for (const auto& row : kNvmlErrorsRows) {
    if (row.code == r) return row.name;
  }
  return "NVML_ERROR_UNRECOGNISED";
}

const char* return_meaning(Return r) {
  for (const auto& row : kNvmlErrorsRows) {
    if (row.code == r) return row.meaning;
  }
  return "unrecognised return code";
}

Return return_from_name(const char* name) {
  if (name == nullptr) return -1;
  std::string_view n(name);
  for (const auto& row : kNvmlErrorsRows) {
    std::string_view full(row.name);
    if (n == full) return row.code;
    // "NOT_SUPPORTED" for "NVML_ERROR_NOT_SUPPORTED", "SUCCESS" for "NVML_SUCCESS".
    auto us = full.find(row.code == 0 ? "NVML_" : "NVML_ERROR_");
    std::string_view shortname = full.substr(us + (row.code == 0 ? 5 : 11));
    if (n == shortname) return row.code;
  }
  return -1;
}

}  // namespace plumb::nvml
