// dlopen loaders of libcuda, libcudart, cuBLAS, cuDNN and NCCL: one per library, binding the tables
// of gpu/cuda_api.h; the process-wide defaults of the benchmarks; error names.
#include "vendor/cuda_api.h"

#include <cstdlib>
#include <initializer_list>
#include <mutex>
#include <vector>

#include "vendor/dynlib.h"

namespace plumb::cuda {

namespace {

// Binds the first of `names` the library exports; a miss is recorded under the first name.
template <class F>
void bind_or_note(const dynlib::Library& h, F& out, std::string& missing, std::initializer_list<const char*> names) {
  if (dynlib::resolve(h, out, names) < 0) missing += (missing.empty() ? "" : ", ") + std::string(*names.begin());
}

void bind_table(const dynlib::Library& h, Driver& d) {
  std::string& m = d.missing;
  bind_or_note(h, d.Init, m, {"cuInit"});
  bind_or_note(h, d.DriverGetVersion, m, {"cuDriverGetVersion"});
  bind_or_note(h, d.DeviceGetCount, m, {"cuDeviceGetCount"});
  bind_or_note(h, d.DeviceGet, m, {"cuDeviceGet"});
  bind_or_note(h, d.DeviceGetName, m, {"cuDeviceGetName"});
  bind_or_note(h, d.DeviceGetAttribute, m, {"cuDeviceGetAttribute"});
  bind_or_note(h, d.DeviceGetPCIBusId, m, {"cuDeviceGetPCIBusId"});
  bind_or_note(h, d.DevicePrimaryCtxRetain, m, {"cuDevicePrimaryCtxRetain"});
  bind_or_note(h, d.DevicePrimaryCtxRelease, m, {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
  bind_or_note(h, d.CtxSetCurrent, m, {"cuCtxSetCurrent"});
  bind_or_note(h, d.MemAlloc, m, {"cuMemAlloc_v2"});
  bind_or_note(h, d.MemFree, m, {"cuMemFree_v2"});
  bind_or_note(h, d.MemcpyHtoD, m, {"cuMemcpyHtoD_v2"});
  bind_or_note(h, d.MemcpyDtoH, m, {"cuMemcpyDtoH_v2"});
}

void bind_table(const dynlib::Library& h, Runtime& rt) {
  std::string& m = rt.missing;
  bind_or_note(h, rt.GetDeviceCount, m, {"cudaGetDeviceCount"});
  bind_or_note(h, rt.DriverGetVersion, m, {"cudaDriverGetVersion"});
  bind_or_note(h, rt.RuntimeGetVersion, m, {"cudaRuntimeGetVersion"});
  bind_or_note(h, rt.SetDevice, m, {"cudaSetDevice"});
  bind_or_note(h, rt.Malloc, m, {"cudaMalloc"});
  bind_or_note(h, rt.Free, m, {"cudaFree"});
  bind_or_note(h, rt.MallocHost, m, {"cudaMallocHost"});
  bind_or_note(h, rt.FreeHost, m, {"cudaFreeHost"});
  bind_or_note(h, rt.Memset, m, {"cudaMemset"});
  bind_or_note(h, rt.MemcpyAsync, m, {"cudaMemcpyAsync"});
  bind_or_note(h, rt.DeviceSynchronize, m, {"cudaDeviceSynchronize"});
  bind_or_note(h, rt.StreamCreate, m, {"cudaStreamCreate"});
  bind_or_note(h, rt.StreamSynchronize, m, {"cudaStreamSynchronize"});
  bind_or_note(h, rt.StreamDestroy, m, {"cudaStreamDestroy"});
  bind_or_note(h, rt.EventCreate, m, {"cudaEventCreate"});
  bind_or_note(h, rt.EventRecord, m, {"cudaEventRecord"});
  bind_or_note(h, rt.EventSynchronize, m, {"cudaEventSynchronize"});
  bind_or_note(h, rt.EventElapsedTime, m, {"cudaEventElapsedTime"});
  bind_or_note(h, rt.EventDestroy, m, {"cudaEventDestroy"});
  bind_or_note(h, rt.DeviceGetPCIBusId, m, {"cudaDeviceGetPCIBusId"});
  bind_or_note(h, rt.DeviceCanAccessPeer, m, {"cudaDeviceCanAccessPeer"});
  bind_or_note(h, rt.DeviceEnablePeerAccess, m, {"cudaDeviceEnablePeerAccess"});
  bind_or_note(h, rt.MemcpyPeerAsync, m, {"cudaMemcpyPeerAsync"});
  bind_or_note(h, rt.GetErrorString, m, {"cudaGetErrorString"});
}

void bind_table(const dynlib::Library& h, Blas& b) {
  std::string& m = b.missing;
  bind_or_note(h, b.Create, m, {"cublasCreate_v2"});
  bind_or_note(h, b.Destroy, m, {"cublasDestroy_v2"});
  bind_or_note(h, b.SetStream, m, {"cublasSetStream_v2"});
  bind_or_note(h, b.GemmEx, m, {"cublasGemmEx"});
  bind_or_note(h, b.GetVersion, m, {"cublasGetVersion_v2"});
  bind_or_note(h, b.GetProperty, m, {"cublasGetProperty"});
}

void bind_table(const dynlib::Library& h, Cudnn& c) { bind_or_note(h, c.GetVersion, c.missing, {"cudnnGetVersion"}); }

void bind_table(const dynlib::Library& h, Nccl& n) {
  std::string& m = n.missing;
  bind_or_note(h, n.GetVersion, m, {"ncclGetVersion"});
  bind_or_note(h, n.CommInitAll, m, {"ncclCommInitAll"});
  bind_or_note(h, n.GetUniqueId, m, {"ncclGetUniqueId"});
  bind_or_note(h, n.CommInitRank, m, {"ncclCommInitRank"});
  bind_or_note(h, n.CommDestroy, m, {"ncclCommDestroy"});
  bind_or_note(h, n.AllReduce, m, {"ncclAllReduce"});
  bind_or_note(h, n.GroupStart, m, {"ncclGroupStart"});
  bind_or_note(h, n.GroupEnd, m, {"ncclGroupEnd"});
  bind_or_note(h, n.GetErrorString, m, {"ncclGetErrorString"});
}

template <class T>
Result<T> open_table(const std::string& path) {
  auto h = dynlib::open(path);
  if (!h) return h.error();
  T t;
  t.library = path;
  bind_table(*h, t);
  return t;
}

// The benchmarks' copy: the override variable, else the first soname that loads, all entry points
// present. Loaded once per process.
template <class T>
Result<T> open_default(const char* what, const char* env, std::initializer_list<const char*> sonames) {
  std::vector<std::string> tries;
  const char* override_lib = std::getenv(env);  // NOLINT(concurrency-mt-unsafe): read once under call_once
  if (override_lib != nullptr && *override_lib != '\0') {
    tries.emplace_back(override_lib);
  } else {
    tries.assign(sonames.begin(), sonames.end());
  }
  std::string first_error;
  for (const auto& s : tries) {
    auto t = open_table<T>(s);
    if (!t) {
      if (first_error.empty()) first_error = t.error().message;
      continue;
    }
    if (!t->missing.empty()) return make_error(ErrorKind::unsupported, s + " lacks " + t->missing);
    return t;
  }
  std::string list;
  for (const auto& s : tries) list += (list.empty() ? "" : ", ") + s;
  return make_error(ErrorKind::absent, std::string(what) + " not found: " + list + " not loadable (" + first_error + ")");
}

template <class T>
Result<const T*> cached(const Result<T>& r) {
  if (!r) return r.error();
  return &*r;
}

}  // namespace

Result<Driver> open_driver(const std::string& path) { return open_table<Driver>(path); }
Result<Runtime> open_runtime(const std::string& path) { return open_table<Runtime>(path); }
Result<Blas> open_blas(const std::string& path) { return open_table<Blas>(path); }
Result<Cudnn> open_cudnn(const std::string& path) { return open_table<Cudnn>(path); }
Result<Nccl> open_nccl(const std::string& path) { return open_table<Nccl>(path); }

Result<const Runtime*> runtime() {
  // cuBLAS's and NCCL's own dependencies load the runtime anyway; the unversioned name is a
  // developer symlink tried first so an installed toolkit wins over a stray wheel copy.
  static const Result<Runtime> r = open_default<Runtime>(
      "CUDA runtime", "PLUMB_CUDART_LIB", {"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"});
  return cached(r);
}

Result<const Blas*> blas() {
  static const Result<Blas> r = open_default<Blas>(
      "cuBLAS", "PLUMB_CUBLAS_LIB", {"libcublas.so", "libcublas.so.13", "libcublas.so.12", "libcublas.so.11"});
  return cached(r);
}

Result<const Nccl*> nccl() {
  static const Result<Nccl> r = open_default<Nccl>("NCCL", "PLUMB_NCCL_LIB", {"libnccl.so", "libnccl.so.2"});
  return cached(r);
}

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

std::string cuda_result_name(int rc) {
  switch (rc) {
    case 0: return "CUDA_SUCCESS";
    case 1: return "CUDA_ERROR_INVALID_VALUE";
    case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
    case 3: return "CUDA_ERROR_NOT_INITIALIZED";
    case 34: return "CUDA_ERROR_STUB_LIBRARY";
    case 35: return "cudaErrorInsufficientDriver";
    case 46: return "CUDA_ERROR_DEVICE_UNAVAILABLE";
    case 100: return "CUDA_ERROR_NO_DEVICE";
    case 101: return "CUDA_ERROR_INVALID_DEVICE";
    case 304: return "CUDA_ERROR_OPERATING_SYSTEM";
    case 803: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
    case 804: return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
    case 999: return "CUDA_ERROR_UNKNOWN";
    default: return "CUDA error " + std::to_string(rc);
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
      auto cu = open_driver("libcuda.so.1");
      std::string why = !cu ? "libcuda.so.1 not loadable: no NVIDIA driver" : "the driver reports no CUDA version";
      return make_error(ErrorKind::absent, (*rt)->library + " present but " + why + " (" + (*rt)->describe(e) + ")");
    }
    if (e == 0) return make_error(ErrorKind::absent, "no CUDA device (cudaGetDeviceCount returned 0)");
    return make_error(ErrorKind::absent, "no usable CUDA device: " + (*rt)->describe(e));
  }
  return n;
}

}  // namespace plumb::cuda
