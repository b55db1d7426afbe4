// dlopen of libcudart, libcublas and libnccl for the GPU benchmarks; every symbol is looked up
// once, and a missing library or symbol becomes a one-line reason.
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "bench/cuda_api.h"

namespace plumb::cuda {

namespace {

struct Loaded {
  void* handle = nullptr;
  std::string name;
  std::string error;
};

Loaded open_first(const char* env, const std::vector<std::string>& sonames) {
  Loaded l;
  std::vector<std::string> tries;
  const char* override_lib = std::getenv(env);  // NOLINT(concurrency-mt-unsafe): read once under call_once
  if (override_lib != nullptr && *override_lib != '\0') tries.emplace_back(override_lib);
  else tries = sonames;
  std::string errs;
  for (const auto& s : tries) {
    l.handle = ::dlopen(s.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (l.handle != nullptr) {
      l.name = s;
      return l;
    }
    const char* e = ::dlerror();
    if (errs.empty()) errs = e != nullptr ? e : s + ": not found";
  }
  std::string list;
  for (const auto& s : tries) list += (list.empty() ? "" : ", ") + s;
  l.error = list + " not loadable (" + errs + ")";
  return l;
}

template <class F>
bool bind(void* h, const char* name, F& out, std::string& missing) {
  out = reinterpret_cast<F>(::dlsym(h, name));  // NOLINT: dlsym returns void*
  if (out == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
  return out != nullptr;
}

}  // namespace

std::string cuda_error_name(Error e) {
  switch (e) {
    case 0: return "cudaSuccess (0)";
    case 2: return "cudaErrorMemoryAllocation (2)";
    case 3: return "cudaErrorInitializationError (3)";
    case 35: return "cudaErrorInsufficientDriver (35)";
    case 100: return "cudaErrorNoDevice (100)";
    case 101: return "cudaErrorInvalidDevice (101)";
    case 803: return "cudaErrorSystemDriverMismatch (803)";
    case 804: return "cudaErrorCompatNotSupportedOnDevice (804)";
    default: return "cudaError " + std::to_string(e);
  }
}

std::string Runtime::describe(Error e) const {
  std::string s = cuda_error_name(e);
  if (GetErrorString != nullptr) {
    const char* m = GetErrorString(e);
    if (m != nullptr) s += ": " + std::string(m);
  }
  return s;
}

Result<const Runtime*> runtime() {
  static Runtime rt;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    Loaded l = open_first("PLUMB_CUDART_LIB", {"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"});
    if (l.handle == nullptr) {
      error = "CUDA runtime not found: " + l.error;
      return;
    }
    rt.library = l.name;
    std::string miss;
    void* h = l.handle;
    bind(h, "cudaGetDeviceCount", rt.GetDeviceCount, miss);
    bind(h, "cudaDriverGetVersion", rt.DriverGetVersion, miss);
    bind(h, "cudaRuntimeGetVersion", rt.RuntimeGetVersion, miss);
    bind(h, "cudaSetDevice", rt.SetDevice, miss);
    bind(h, "cudaMalloc", rt.Malloc, miss);
    bind(h, "cudaFree", rt.Free, miss);
    bind(h, "cudaMallocHost", rt.MallocHost, miss);
    bind(h, "cudaFreeHost", rt.FreeHost, miss);
    bind(h, "cudaMemset", rt.Memset, miss);
    bind(h, "cudaMemcpyAsync", rt.MemcpyAsync, miss);
    bind(h, "cudaDeviceSynchronize", rt.DeviceSynchronize, miss);
    bind(h, "cudaStreamCreate", rt.StreamCreate, miss);
    bind(h, "cudaStreamSynchronize", rt.StreamSynchronize, miss);
    bind(h, "cudaStreamDestroy", rt.StreamDestroy, miss);
    bind(h, "cudaEventCreate", rt.EventCreate, miss);
    bind(h, "cudaEventRecord", rt.EventRecord, miss);
    bind(h, "cudaEventSynchronize", rt.EventSynchronize, miss);
    bind(h, "cudaEventElapsedTime", rt.EventElapsedTime, miss);
    bind(h, "cudaEventDestroy", rt.EventDestroy, miss);
    bind(h, "cudaDeviceGetPCIBusId", rt.DeviceGetPCIBusId, miss);
    bind(h, "cudaDeviceCanAccessPeer", rt.DeviceCanAccessPeer, miss);
    bind(h, "cudaDeviceEnablePeerAccess", rt.DeviceEnablePeerAccess, miss);
    bind(h, "cudaMemcpyPeerAsync", rt.MemcpyPeerAsync, miss);
    bind(h, "cudaGetErrorString", rt.GetErrorString, miss);
    if (!miss.empty()) error = l.name + " lacks " + miss;
  });
  if (!error.empty()) return make_error(ErrorKind::absent, error);
  return &rt;
}

Result<const Blas*> blas() {
  static Blas b;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    Loaded l = open_first("PLUMB_CUBLAS_LIB", {"libcublas.so", "libcublas.so.13", "libcublas.so.12", "libcublas.so.11"});
    if (l.handle == nullptr) {
      error = "cuBLAS not found: " + l.error;
      return;
    }
    b.library = l.name;
    std::string miss;
    bind(l.handle, "cublasCreate_v2", b.Create, miss);
    bind(l.handle, "cublasDestroy_v2", b.Destroy, miss);
    bind(l.handle, "cublasSetStream_v2", b.SetStream, miss);
    bind(l.handle, "cublasGemmEx", b.GemmEx, miss);
    bind(l.handle, "cublasGetVersion_v2", b.GetVersion, miss);
    if (!miss.empty()) error = l.name + " lacks " + miss;
  });
  if (!error.empty()) return make_error(ErrorKind::absent, error);
  return &b;
}

Result<const Nccl*> nccl() {
  static Nccl n;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    Loaded l = open_first("PLUMB_NCCL_LIB", {"libnccl.so", "libnccl.so.2"});
    if (l.handle == nullptr) {
      error = "NCCL not found: " + l.error;
      return;
    }
    n.library = l.name;
    std::string miss;
    bind(l.handle, "ncclGetVersion", n.GetVersion, miss);
    bind(l.handle, "ncclCommInitAll", n.CommInitAll, miss);
    bind(l.handle, "ncclCommDestroy", n.CommDestroy, miss);
    bind(l.handle, "ncclAllReduce", n.AllReduce, miss);
    bind(l.handle, "ncclGroupStart", n.GroupStart, miss);
    bind(l.handle, "ncclGroupEnd", n.GroupEnd, miss);
    bind(l.handle, "ncclGetErrorString", n.GetErrorString, miss);
    if (!miss.empty()) error = l.name + " lacks " + miss;
  });
  if (!error.empty()) return make_error(ErrorKind::absent, error);
  return &n;
}

Result<int> usable_devices() {
  auto rt = runtime();
  if (!rt) return rt.error();
  int drv = 0;
  (*rt)->DriverGetVersion(&drv);
  int n = 0;
  Error e = (*rt)->GetDeviceCount(&n);
  if (e != 0 || n <= 0) {
    // cudaDriverGetVersion reports 0 when no driver is installed: say that plainly.
    if (drv == 0) {
      void* cu = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      std::string why = cu == nullptr ? "libcuda.so.1 not loadable: no NVIDIA driver" : "the driver reports no CUDA version";
      if (cu != nullptr) ::dlclose(cu);
      return make_error(ErrorKind::absent, (*rt)->library + " present but " + why + " (" + (*rt)->describe(e) + ")");
    }
    if (e == 0) return make_error(ErrorKind::absent, "no CUDA device (cudaGetDeviceCount returned 0)");
    return make_error(ErrorKind::absent, "no usable CUDA device: " + (*rt)->describe(e));
  }
  return n;
}

}  // namespace plumb::cuda
