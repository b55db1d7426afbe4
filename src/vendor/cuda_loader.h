// The CUDA stack through the loaders of gpu/cuda_api.h: each library's own version getter, and a deviceQuery-like run
// through the driver API (cuInit, count, attributes, a context, a small allocation and copy).
#pragma once

#include <optional>
#include <string>

#include "core/facts/gpu.h"

namespace plumb {

struct LibVersion {
  std::optional<long long> raw;  // the getter's integer: 13000, 91900, 22809
  std::string version;           // decoded: "13.0", "9.19.0", "2.28.9"
  std::string error;             // why there is none ("cannot load ...: ...", "no cudnnGetVersion")
};

// kind: cudart | cudnn | nccl | cublas | cuda. Loads `path` (RTLD_LOCAL, never closed) and calls
// cudaRuntimeGetVersion / cudnnGetVersion / ncclGetVersion / cublasGetProperty / cuDriverGetVersion.
// cuBLAS takes ~0.4 s to load (libcublasLt is 500 MB), so collectors only call it on request.
LibVersion probe_library_version(const std::string& kind, const std::string& path);

// Runs the driver API through `libcuda` (default: the loader's libcuda.so.1) and, when `cudart`
// is given, asks that runtime for the device count. Status: pass | no_driver | stub_library |
// insufficient_driver | no_device | error.
CudaDeviceQuery run_device_query(const std::string& libcuda = "libcuda.so.1", const std::string& cudart = {});

}  // namespace plumb
