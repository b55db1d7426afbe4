// Category, kernel-type and runtime-call tables (sources: kineto ActivityType.h, HTA types.py @f4d0062c).
#include "analyze/trace/classify.h"

#include <array>

namespace plumb::trace {

namespace {
bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool has(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }
}  // namespace

Cat parse_cat(std::string_view s) {
  if (s.empty()) return Cat::none;
  switch (s[0]) {
    case 'c':
      if (s == "cpu_op") return Cat::cpu_op;
      if (s == "cuda_runtime" || s == "cuda_driver") return Cat::runtime;
      if (s == "cuda_sync") return Cat::cuda_sync;
      if (s == "cpu_instant_event") return Cat::instant;
      if (s == "cuda_profiler_range") return Cat::profiler_range;
      break;
    case 'u':
      if (s == "user_annotation") return Cat::user_annotation;
      break;
    case 'g':
      if (s == "gpu_user_annotation") return Cat::gpu_user_annotation;
      if (s == "gpu_memcpy") return Cat::memcpy;
      if (s == "gpu_memset") return Cat::memset;
      break;
    case 'k':
      if (s == "kernel") return Cat::kernel;
      break;
    case 'p':
      if (s == "python_function") return Cat::python_function;
      break;
    case 'm':
      if (starts(s, "mtia_")) return Cat::mtia;
      break;
    case 'O':
      if (s == "Operator") return Cat::cpu_op;
      break;
    case 'R':
      if (s == "Runtime") return Cat::runtime;
      break;
    case 'K':
      if (s == "Kernel") return Cat::kernel;
      break;
    case 'M':
      if (s == "Memcpy") return Cat::memcpy;
      if (s == "Memset") return Cat::memset;
      break;
    case 'T':
      if (s == "Trace") return Cat::trace_span;
      break;
    default: break;
  }
  return Cat::other;
}

KernelType kernel_type(std::string_view n) {
  // 1. (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)
  if (starts(n, "nccl") || starts(n, "hip") || starts(n, "hccl") || has(n, "ncclKernel")) {
    return KernelType::communication;
  }
  // 2. (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)   (hip... already taken by 1)
  if (starts(n, "Memcpy") || starts(n, "Memset") || starts(n, "dma")) return KernelType::memory;
  // 3. computation unless one of HTA's exclusion patterns matches (re.match: anchored at start).
  bool excluded = has(n, "Memcpy") || has(n, "Memset") || has(n, "dma") || has(n, "Sync") ||
                  starts(n, "Stream Wait Event") || (starts(n, "cuda") && has(n.substr(4), "LaunchKernel")) ||
                  starts(n, "runFunction") || starts(n, "job_exe") || starts(n, "packet") || starts(n, "pe_exe") ||
                  starts(n, "cpum_exe_subgraph") || starts(n, "collective_subgraph_execution");
  return excluded ? KernelType::other : KernelType::computation;
}

CopyKind copy_kind(std::string_view n) {
  CopyKind k;
  if (!starts(n, "Memcpy ")) return k;
  std::string_view rest = n.substr(7);
  if (starts(rest, "HtoD")) k.dir = CopyDir::htod;
  else if (starts(rest, "DtoH")) k.dir = CopyDir::dtoh;
  else if (starts(rest, "DtoD")) k.dir = CopyDir::dtod;
  auto open = rest.find('(');
  if (open != std::string_view::npos) {
    std::string_view pair = rest.substr(open + 1);
    if (k.dir == CopyDir::htod) k.pageable = starts(pair, "Pageable");
    if (k.dir == CopyDir::dtoh) k.pageable = has(pair, "-> Pageable");
  }
  return k;
}

bool is_sync_call(std::string_view n) {
  static constexpr std::array<std::string_view, 19> kSync{
      "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaMemcpy",
      "cudaMemcpy2D",          "cudaMemcpy3D",          "cudaMemcpyToSymbol",   "cudaMemcpyFromSymbol",
      "cudaMemset",            "cudaMemcpyPeer",        "cuCtxSynchronize",     "cuStreamSynchronize",
      "cuEventSynchronize",    "cuMemcpyDtoH_v2",       "cuMemcpyHtoD_v2",      "hipDeviceSynchronize",
      "hipStreamSynchronize",  "hipEventSynchronize",   "hipMemcpy"};
  if (n.size() < 8 || (n[0] != 'c' && n[0] != 'h')) return false;
  for (auto s : kSync) {
    if (n == s) return true;
  }
  return n == "hipMemcpyWithStream";
}

bool is_launch_call(std::string_view n) {
  static constexpr std::array<std::string_view, 11> kLaunch{
      "cudaLaunchKernel", "cudaLaunchKernelExC",    "cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernelMultiDevice",
      "cudaGraphLaunch",  "cuLaunchKernel",         "cuLaunchKernelEx",            "hipLaunchKernel",
      "hipExtModuleLaunchKernel", "hipModuleLaunchKernel", "hipExtLaunchKernel"};
  if (n.size() < 8 || (n[0] != 'c' && n[0] != 'h')) return false;
  for (auto s : kLaunch) {
    if (n == s) return true;
  }
  return false;
}

bool is_host_query_call(std::string_view n) {
  static constexpr std::array<std::string_view, 28> kQuery{
      "cudaEventQuery", "cudaStreamQuery", "cudaPeekAtLastError", "cudaGetLastError", "cudaGetDevice",
      "cudaGetDeviceCount", "cudaStreamIsCapturing", "cudaStreamGetCaptureInfo", "cudaDeviceGetAttribute",
      "cudaPointerGetAttributes", "cudaDriverGetVersion", "cudaRuntimeGetVersion", "cudaFuncGetAttributes",
      "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
      "cuEventQuery", "cuStreamQuery", "cuCtxGetCurrent", "cuDeviceGetAttribute", "cuDriverGetVersion",
      "hipEventQuery", "hipStreamQuery", "hipPeekAtLastError", "hipGetLastError", "hipGetDevice",
      "hipGetDeviceCount", "hipStreamIsCapturing", "hipDeviceGetAttribute"};
  if (n.size() < 12 || (n[0] != 'c' && n[0] != 'h')) return false;
  for (auto s : kQuery) {
    if (n == s) return true;
  }
  return false;
}

bool is_profiler_step(std::string_view n) { return starts(n, "ProfilerStep#"); }
bool is_dataloader(std::string_view n) { return starts(n, "enumerate(DataLoader)#"); }
bool is_optimizer(std::string_view n) { return starts(n, "Optimizer.step#") || starts(n, "Optimizer.zero_grad#"); }
bool is_cpu_copy(std::string_view n) { return n == "aten::copy_" || n == "aten::to" || n == "aten::_to_copy"; }

std::int64_t step_number(std::string_view n) {
  if (!is_profiler_step(n)) return -1;
  std::string_view d = n.substr(13);
  if (d.empty() || d.size() > 15) return -1;
  std::int64_t v = 0;
  for (char c : d) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace plumb::trace
