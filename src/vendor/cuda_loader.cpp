// The CUDA stack's version getters and the device query, through the shared loaders of
// gpu/cuda_api.h (one declaration and one dlopen per library for the collector and the benches).
#include "vendor/cuda_loader.h"

#include <cstring>
#include <vector>

#include "vendor/cuda_api.h"
#include "core/knowledge/cuda_version.h"

namespace plumb {

using cuda::cuda_result_name;

namespace {
LibVersion failed(std::string why) {
  LibVersion v;
  v.error = std::move(why);
  return v;
}
}  // namespace

LibVersion probe_library_version(const std::string& kind, const std::string& path) {
  LibVersion out;
  if (kind == "cudart" || kind == "cuda") {
    int v = 0;
    int rc = 0;
    std::string name;
    if (kind == "cudart") {
      auto rt = cuda::open_runtime(path);
      if (!rt) return failed(rt.error().message);
      name = "cudaRuntimeGetVersion";
      if (rt->RuntimeGetVersion == nullptr) return failed("no " + name + " in " + path);
      rc = rt->RuntimeGetVersion(&v);
    } else {
      auto drv = cuda::open_driver(path);
      if (!drv) return failed(drv.error().message);
      name = "cuDriverGetVersion";
      if (drv->DriverGetVersion == nullptr) return failed("no " + name + " in " + path);
      rc = drv->DriverGetVersion(&v);
    }
    if (rc != cuda::kSuccess) return failed(name + ": " + cuda_result_name(rc));
    out.raw = v;
    out.version = decode_cuda_version(v);
  } else if (kind == "cudnn") {
    auto dnn = cuda::open_cudnn(path);
    if (!dnn) return failed(dnn.error().message);
    if (dnn->GetVersion == nullptr) return failed("no cudnnGetVersion in " + path);
    out.raw = static_cast<long long>(dnn->GetVersion());
    out.version = decode_cudnn_version(*out.raw);
  } else if (kind == "nccl") {
    auto nc = cuda::open_nccl(path);
    if (!nc) return failed(nc.error().message);
    if (nc->GetVersion == nullptr) return failed("no ncclGetVersion in " + path);
    int v = 0;
    if (int rc = nc->GetVersion(&v); rc != 0) return failed("ncclGetVersion returned " + std::to_string(rc));
    out.raw = v;
    out.version = decode_nccl_version(v);
  } else if (kind == "cublas") {
    auto bl = cuda::open_blas(path);
    if (!bl) return failed(bl.error().message);
    if (bl->GetProperty == nullptr) return failed("no cublasGetProperty in " + path);
    int p[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
      if (int rc = bl->GetProperty(i, &p[i]); rc != 0) {
        return failed("cublasGetProperty returned " + std::to_string(rc));
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
  auto drv = cuda::open_driver(libcuda);
  if (!drv) {
    q.status = "no_driver";
    q.detail = libcuda + " not found: no NVIDIA driver installed (" + drv.error().message + ")";
    q.driver_version = Fact<int>::none(q.detail, "cuDriverGetVersion");
    q.device_count = Fact<int>::none(q.detail, "cuDeviceGetCount");
  } else {
    const cuda::Driver& d = *drv;
    auto cu_init = d.Init;
    auto drv_ver = d.DriverGetVersion;
    auto count = d.DeviceGetCount;
    auto get = d.DeviceGet;
    auto name = d.DeviceGetName;
    auto attr = d.DeviceGetAttribute;
    auto bus = d.DeviceGetPCIBusId;
    auto retain = d.DevicePrimaryCtxRetain;
    auto release = d.DevicePrimaryCtxRelease;
    auto set_cur = d.CtxSetCurrent;
    auto alloc = d.MemAlloc;
    auto free_ = d.MemFree;
    auto h2d = d.MemcpyHtoD;
    auto d2h = d.MemcpyDtoH;
    if (cu_init == nullptr || drv_ver == nullptr || count == nullptr) {
      q.status = "error";
      q.detail = libcuda + " lacks cuInit/cuDriverGetVersion/cuDeviceGetCount";
    } else {
      int v = 0;
      int rc = drv_ver(&v);
      q.driver_version = rc == cuda::kSuccess ? Fact<int>::of(v, "cuDriverGetVersion")
                                            : Fact<int>::none(cuda_result_name(rc), "cuDriverGetVersion");
      rc = cu_init(0);
      if (rc == cuda::kStubLibrary) {
        q.status = "stub_library";
        q.detail = "cuInit: CUDA_ERROR_STUB_LIBRARY (34): " + libcuda +
                   " is the toolkit's link-time stub, not the driver's library";
      } else if (rc == cuda::kNoDevice) {
        q.status = "no_device";
        q.detail = "cuInit: CUDA_ERROR_NO_DEVICE (100)";
      } else if (rc != cuda::kSuccess) {
        q.status = "error";
        q.detail = "cuInit: " + cuda_result_name(rc) + " (" + std::to_string(rc) + ")";
      } else {
        int n = 0;
        rc = count(&n);
        q.device_count = rc == cuda::kSuccess ? Fact<int>::of(n, "cuDeviceGetCount")
                                            : Fact<int>::none(cuda_result_name(rc), "cuDeviceGetCount");
        q.status = (rc == cuda::kSuccess && n > 0) ? "pass" : (rc == cuda::kSuccess ? "no_device" : "error");
        for (int i = 0; rc == cuda::kSuccess && i < n && i < 64; ++i) {
          int dev = 0;
          std::string line;
          if (get == nullptr || get(&dev, i) != cuda::kSuccess) {
            q.status = "error";
            q.devices.push_back("device " + std::to_string(i) + ": cuDeviceGet failed");
            continue;
          }
          char buf[128] = {};
          if (bus != nullptr && bus(buf, sizeof buf, dev) == cuda::kSuccess) line += std::string(buf) + " ";
          std::memset(buf, 0, sizeof buf);
          if (name != nullptr && name(buf, sizeof buf, dev) == cuda::kSuccess) line += buf;
          int maj = 0, min = 0, sms = 0;
          if (attr != nullptr && attr(&maj, cuda::kAttrCcMajor, dev) == cuda::kSuccess && attr(&min, cuda::kAttrCcMinor, dev) == cuda::kSuccess) {
            line += " sm_" + std::to_string(maj) + std::to_string(min);
          }
          if (attr != nullptr && attr(&sms, cuda::kAttrMultiprocessors, dev) == cuda::kSuccess) line += " " + std::to_string(sms) + " SMs";
          // A context, a 1 MiB allocation and a round-trip copy: deviceQuery's PASS plus memory.
          std::string step = "context";
          void* ctx = nullptr;
          int r = (retain && set_cur && alloc && free_ && h2d && d2h) ? retain(&ctx, dev) : -1;
          if (r == cuda::kSuccess) r = set_cur(ctx);
          unsigned long long ptr = 0;
          std::vector<unsigned char> src(1 << 20), back(1 << 20);
          for (std::size_t k = 0; k < src.size(); ++k) src[k] = static_cast<unsigned char>(k * 7 + 3);
          if (r == cuda::kSuccess) {
            step = "alloc";
            r = alloc(&ptr, src.size());
          }
          if (r == cuda::kSuccess) {
            step = "copy";
            r = h2d(ptr, src.data(), src.size());
            if (r == cuda::kSuccess) r = d2h(back.data(), ptr, back.size());
            if (r == cuda::kSuccess && back != src) r = -2;
            free_(ptr);
          }
          if (ctx != nullptr && release != nullptr) release(dev);
          if (r == cuda::kSuccess) {
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
    auto rt = cuda::open_runtime(cudart);
    auto get_count = rt ? rt->GetDeviceCount : nullptr;
    if (get_count != nullptr) {
      int n = 0;
      int rc = get_count(&n);
      std::string what = "runtime " + cudart + ": cudaGetDeviceCount " + (rc == 0 ? "ok (" + std::to_string(n) + ")" : cuda_result_name(rc));
      q.detail += (q.detail.empty() ? "" : "; ") + what;
      if (rc == cuda::kInsufficientDriver && q.status != "no_driver" && q.status != "stub_library") q.status = "insufficient_driver";
    }
  }
  return q;
}

}  // namespace plumb
