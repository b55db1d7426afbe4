// dlopen probes of libcudart, cuDNN, NCCL, cuBLAS and libcuda. Declarations are our own, from the
// CUDA driver/runtime API references; only the handful of entry points we call are declared.
#include "gpu/cuda_loader.h"

#include <dlfcn.h>

#include <cstring>
#include <vector>

#include "gpu/cuda_version.h"

namespace plumb {

namespace {

// CUresult / cudaError_t values we tell apart (same numbers in both APIs for these).
constexpr int kCudaSuccess = 0;
constexpr int kStubLibrary = 34;        // CUDA_ERROR_STUB_LIBRARY / cudaErrorStubLibrary
constexpr int kInsufficientDriver = 35; // cudaErrorInsufficientDriver
constexpr int kNoDevice = 100;          // CUDA_ERROR_NO_DEVICE / cudaErrorNoDevice
// CUdevice_attribute values.
constexpr int kAttrMultiprocessors = 16;
constexpr int kAttrCcMajor = 75;
constexpr int kAttrCcMinor = 76;

void* open_lib(const std::string& path, std::string& err) {
  ::dlerror();
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* e = ::dlerror();
    err = "cannot load " + path + ": " + (e != nullptr ? e : "unknown error");
  }
  return h;
}

template <class F>
F sym(void* h, const char* name) {
  return reinterpret_cast<F>(::dlsym(h, name));
}

template <class F>
F sym_any(void* h, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (auto f = sym<F>(h, n)) return f;
  }
  return nullptr;
}

}  // namespace

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

LibVersion probe_library_version(const std::string& kind, const std::string& path) {
  LibVersion out;
  void* h = open_lib(path, out.error);
  if (h == nullptr) return out;
  if (kind == "cudart" || kind == "cuda") {
    const char* name = kind == "cudart" ? "cudaRuntimeGetVersion" : "cuDriverGetVersion";
    auto f = sym<int (*)(int*)>(h, name);
    if (f == nullptr) {
      out.error = std::string("no ") + name + " in " + path;
      return out;
    }
    int v = 0;
    int rc = f(&v);
    if (rc != kCudaSuccess) {
      out.error = std::string(name) + ": " + cuda_result_name(rc);
      return out;
    }
    out.raw = v;
    out.version = decode_cuda_version(v);
  } else if (kind == "cudnn") {
    auto f = sym<std::size_t (*)()>(h, "cudnnGetVersion");
    if (f == nullptr) {
      out.error = "no cudnnGetVersion in " + path;
      return out;
    }
    out.raw = static_cast<long long>(f());
    out.version = decode_cudnn_version(*out.raw);
  } else if (kind == "nccl") {
    auto f = sym<int (*)(int*)>(h, "ncclGetVersion");
    if (f == nullptr) {
      out.error = "no ncclGetVersion in " + path;
      return out;
    }
    int v = 0;
    if (int rc = f(&v); rc != 0) {
      out.error = "ncclGetVersion returned " + std::to_string(rc);
      return out;
    }
    out.raw = v;
    out.version = decode_nccl_version(v);
  } else if (kind == "cublas") {
    // libraryPropertyType: MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2.
    auto f = sym<int (*)(int, int*)>(h, "cublasGetProperty");
    if (f == nullptr) {
      out.error = "no cublasGetProperty in " + path;
      return out;
    }
    int p[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
      if (int rc = f(i, &p[i]); rc != 0) {
        out.error = "cublasGetProperty returned " + std::to_string(rc);
        return out;
      }
    }
    out.raw = p[0] * 10000LL + p[1] * 100LL + p[2];
    out.version = std::to_string(p[0]) + "." + std::to_string(p[1]) + "." + std::to_string(p[2]);
  } else {
    out.error = "unknown library kind " + kind;
  }
  return out;
}

CudaDeviceQuery run_device_query(const std::string& libcuda, const std::string& cudart) {
  CudaDeviceQuery q;
  q.library = libcuda;
  std::string err;
  void* h = open_lib(libcuda, err);
  if (h == nullptr) {
    q.status = "no_driver";
    q.detail = libcuda + " not found: no NVIDIA driver installed (" + err + ")";
    q.driver_version = Fact<int>::none(q.detail, "cuDriverGetVersion");
    q.device_count = Fact<int>::none(q.detail, "cuDeviceGetCount");
  } else {
    using I = int (*)(int*);
    auto cu_init = sym<int (*)(unsigned)>(h, "cuInit");
    auto drv_ver = sym<I>(h, "cuDriverGetVersion");
    auto count = sym<I>(h, "cuDeviceGetCount");
    auto get = sym<int (*)(int*, int)>(h, "cuDeviceGet");
    auto name = sym<int (*)(char*, int, int)>(h, "cuDeviceGetName");
    auto attr = sym<int (*)(int*, int, int)>(h, "cuDeviceGetAttribute");
    auto bus = sym<int (*)(char*, int, int)>(h, "cuDeviceGetPCIBusId");
    auto retain = sym<int (*)(void**, int)>(h, "cuDevicePrimaryCtxRetain");
    auto release = sym_any<int (*)(int)>(h, {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
    auto set_cur = sym<int (*)(void*)>(h, "cuCtxSetCurrent");
    auto alloc = sym<int (*)(unsigned long long*, std::size_t)>(h, "cuMemAlloc_v2");
    auto free_ = sym<int (*)(unsigned long long)>(h, "cuMemFree_v2");
    auto h2d = sym<int (*)(unsigned long long, const void*, std::size_t)>(h, "cuMemcpyHtoD_v2");
    auto d2h = sym<int (*)(void*, unsigned long long, std::size_t)>(h, "cuMemcpyDtoH_v2");
    if (cu_init == nullptr || drv_ver == nullptr || count == nullptr) {
      q.status = "error";
      q.detail = libcuda + " lacks cuInit/cuDriverGetVersion/cuDeviceGetCount";
    } else {
      int v = 0;
      int rc = drv_ver(&v);
      q.driver_version = rc == kCudaSuccess ? Fact<int>::of(v, "cuDriverGetVersion")
                                            : Fact<int>::none(cuda_result_name(rc), "cuDriverGetVersion");
      rc = cu_init(0);
      if (rc == kStubLibrary) {
        q.status = "stub_library";
        q.detail = "cuInit: CUDA_ERROR_STUB_LIBRARY (34): " + libcuda +
                   " is the toolkit's link-time stub, not the driver's library";
      } else if (rc == kNoDevice) {
        q.status = "no_device";
        q.detail = "cuInit: CUDA_ERROR_NO_DEVICE (100)";
      } else if (rc != kCudaSuccess) {
        q.status = "error";
        q.detail = "cuInit: " + cuda_result_name(rc) + " (" + std::to_string(rc) + ")";
      } else {
        int n = 0;
        rc = count(&n);
        q.device_count = rc == kCudaSuccess ? Fact<int>::of(n, "cuDeviceGetCount")
                                            : Fact<int>::none(cuda_result_name(rc), "cuDeviceGetCount");
        q.status = (rc == kCudaSuccess && n > 0) ? "pass" : (rc == kCudaSuccess ? "no_device" : "error");
        for (int i = 0; rc == kCudaSuccess && i < n && i < 64; ++i) {
          int dev = 0;
          std::string line;
          if (get == nullptr || get(&dev, i) != kCudaSuccess) {
            q.status = "error";
            q.devices.push_back("device " + std::to_string(i) + ": cuDeviceGet failed");
            continue;
          }
          char buf[128] = {};
          if (bus != nullptr && bus(buf, sizeof buf, dev) == kCudaSuccess) line += std::string(buf) + " ";
          std::memset(buf, 0, sizeof buf);
          if (name != nullptr && name(buf, sizeof buf, dev) == kCudaSuccess) line += buf;
          int maj = 0, min = 0, sms = 0;
          if (attr != nullptr && attr(&maj, kAttrCcMajor, dev) == kCudaSuccess && attr(&min, kAttrCcMinor, dev) == kCudaSuccess) {
            line += " sm_" + std::to_string(maj) + std::to_string(min);
          }
          if (attr != nullptr && attr(&sms, kAttrMultiprocessors, dev) == kCudaSuccess) line += " " + std::to_string(sms) + " SMs";
          // A context, a 1 MiB allocation and a round-trip copy: deviceQuery's PASS plus memory.
          std::string step = "context";
          void* ctx = nullptr;
          int r = (retain && set_cur && alloc && free_ && h2d && d2h) ? retain(&ctx, dev) : -1;
          if (r == kCudaSuccess) r = set_cur(ctx);
          unsigned long long ptr = 0;
          std::vector<unsigned char> src(1 << 20), back(1 << 20);
          for (std::size_t k = 0; k < src.size(); ++k) src[k] = static_cast<unsigned char>(k * 7 + 3);
          if (r == kCudaSuccess) {
            step = "alloc";
            r = alloc(&ptr, src.size());
          }
          if (r == kCudaSuccess) {
            step = "copy";
            r = h2d(ptr, src.data(), src.size());
            if (r == kCudaSuccess) r = d2h(back.data(), ptr, back.size());
            if (r == kCudaSuccess && back != src) r = -2;
            free_(ptr);
          }
          if (ctx != nullptr && release != nullptr) release(dev);
          if (r == kCudaSuccess) {
            line += ": alloc+copy ok";
          } else {
            line += ": " + step + " failed (" + (r == -2 ? std::string("data mismatch") : cuda_result_name(r)) + ")";
            q.status = "error";
          }
          q.devices.push_back(line);
        }
      }
    }
  }
  // The runtime's own view tells "insufficient driver" (35) apart from the rest.
  if (!cudart.empty()) {
    std::string e;
    void* rt = open_lib(cudart, e);
    auto get_count = rt != nullptr ? sym<int (*)(int*)>(rt, "cudaGetDeviceCount") : nullptr;
    if (get_count != nullptr) {
      int n = 0;
      int rc = get_count(&n);
      std::string what = "runtime " + cudart + ": cudaGetDeviceCount " + (rc == 0 ? "ok (" + std::to_string(n) + ")" : cuda_result_name(rc));
      q.detail += (q.detail.empty() ? "" : "; ") + what;
      if (rc == kInsufficientDriver && q.status != "no_driver" && q.status != "stub_library") q.status = "insufficient_driver";
    }
  }
  return q;
}

}  // namespace plumb
