// The CUDA stack on disk: every copy of libcudart, cuDNN, NCCL, cuBLAS and libcuda on the loader
// path, CUDA_HOME/CUDA_PATH, /usr/local/cuda*, and Python site-packages; which copy the loader
// would pick; with --pid N, which copies the process mapped; versions; the device query.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/process.h"
#include "core/context.h"
#include "core/facts/gpu.h"

namespace plumb {

struct CudaLibKind {
  const char* kind;         // cudart | cudnn | nccl | cublas | cuda
  const char* stem;         // "libcudart.so"
  const char* dist_prefix;  // pip distribution name prefix: "nvidia_cuda_runtime"
};
const std::vector<CudaLibKind>& cuda_lib_kinds();

// One file mapped in /proc/<pid>/maps.
struct MappedFile {
  std::string path;      // the 6th column, " (deleted)" removed
  bool deleted = false;  // the kernel marked it " (deleted)": unlinked or replaced since it was mapped
  bool operator==(const MappedFile&) const = default;
};
// Distinct files mapped in /proc/<pid>/maps, in first-seen order (anonymous and [heap]-like
// mappings skipped). Total on garbage.
std::vector<MappedFile> parse_proc_maps(std::string_view text);
// The paths of parse_proc_maps.
std::vector<std::string> parse_proc_maps_paths(std::string_view text);

struct CudaSearchOptions {
  bool probe_versions = true;   // dlopen each copy and call its getter (live root only)
  bool device_query = true;     // run the driver-API device query (live root only)
};

// The version in /proc/driver/nvidia/version's "NVRM version: NVIDIA UNIX [Open ]Kernel Module ..."
// line ("535.104.05"); nullopt when the text has none.
std::optional<std::string> parse_nvidia_module_version(std::string_view text);

CudaStackFacts read_cuda_stack(const Context& ctx, const CudaSearchOptions& opts = {});

// The GPUs other processes compute on, from NVML's running compute processes (ctx.nvml_lib), for
// the device query's `--cuda-context idle`: bus id ("0000:3b:00.0") -> "1 process: pid 4242
// (python3, 70.1 GiB)". plumb's own process and its descendants (the framework probe) do not count. When
// NVML cannot say, `unknown` tells why and the map is empty.
struct BusyGpus {
  std::map<std::string, std::string> by_bus;
  std::string unknown;
  bool stalled = false;  // NVML did not answer within its share of the deadline (`unknown` says so)
};
BusyGpus busy_gpus(const Context& ctx);

}  // namespace plumb
