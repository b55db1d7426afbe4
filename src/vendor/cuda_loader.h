// The CUDA stack through the loaders of gpu/cuda_api.h: each library's own version getter, and a deviceQuery-like run
// through the driver API (cuInit, count, attributes, a context, a small allocation and copy).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

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

// How far the device query goes on each GPU (--cuda-context).
enum class CudaContextMode { idle, always, never };
// "idle" | "always" | "never"; nullopt for anything else.
std::optional<CudaContextMode> parse_cuda_context_mode(std::string_view s);
const char* cuda_context_mode_name(CudaContextMode m);

struct DeviceQueryOptions {
  std::string libcuda = "libcuda.so.1";
  std::string cudart;  // when given, that runtime is asked for the device count too
  CudaContextMode context = CudaContextMode::idle;
  // For `idle`: the GPUs other processes compute on, by bus id as sysfs spells it ("0000:3b:00.0"),
  // each with who ("1 process: pid 4242 (python3, 70.1 GiB)"). No context is created on those.
  std::map<std::string, std::string> busy;
  // For `idle`: why `busy` could not be read (no NVML...). Every GPU is then tried, and each
  // device's line says the busy state was unknown.
  std::string busy_unknown;
  // For `idle`: NVML hung while listing them. No GPU is given a context then: a hung NVML points at
  // a GPU in trouble, and none can be shown idle. `busy_unknown` is the reason each line gives.
  bool busy_stalled = false;
};

// Runs the driver API through `libcuda` (the loader's libcuda.so.1 by default): cuInit, the device
// count, per device its bus id, name, compute capability, SMs and compute mode, then, where the
// mode and the options allow, a primary context, a 1 MiB allocation and a round-trip copy.
// Status: pass | no_driver | stub_library | insufficient_driver | no_device | error. A device left
// without a context (busy, Prohibited, held in Exclusive_Process mode, --cuda-context never) is
// listed in `untested` and is no error.
CudaDeviceQuery run_device_query(const DeviceQueryOptions& o);

}  // namespace plumb
