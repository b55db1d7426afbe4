// The CUDA stack's version getters and the device query, through the shared loaders of
// gpu/cuda_api.h (one declaration and one dlopen per library for the collector and the benches).
#include "vendor/cuda_loader.h"

#include <cstring>
#include <vector>

#include "core/text.h"
#include "vendor/cuda_api.h"
#include "vendor/nvml.h"
#include "vendor/nvml_devices.h"
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

std::optional<CudaContextMode> parse_cuda_context_mode(std::string_view s) {
  if (s == "idle") return CudaContextMode::idle;
  if (s == "always") return CudaContextMode::always;
  if (s == "never") return CudaContextMode::never;
  return std::nullopt;
}

const char* cuda_context_mode_name(CudaContextMode m) {
  switch (m) {
    case CudaContextMode::idle: return "idle";
    case CudaContextMode::always: return "always";
    case CudaContextMode::never: return "never";
  }
  return "idle";
}

namespace {

// A primary context, a 1 MiB allocation and a round-trip copy: deviceQuery's PASS plus memory.
// CUDA's result, -2 for a copy that came back different, -1 when the library lacks a call; `step`
// names the step that failed.
int context_alloc_copy(const cuda::Driver& d, int dev, std::string& step) {
  step = "context";
  if (d.DevicePrimaryCtxRetain == nullptr || d.CtxSetCurrent == nullptr || d.MemAlloc == nullptr ||
      d.MemFree == nullptr || d.MemcpyHtoD == nullptr || d.MemcpyDtoH == nullptr) {
    return -1;
  }
  void* ctx = nullptr;
  int r = d.DevicePrimaryCtxRetain(&ctx, dev);
  if (r == cuda::kSuccess) r = d.CtxSetCurrent(ctx);
  if (r == cuda::kSuccess) {
    std::vector<unsigned char> src(std::size_t{1} << 20);
    std::vector<unsigned char> back(src.size());
    for (std::size_t k = 0; k < src.size(); ++k) src[k] = static_cast<unsigned char>(k * 7 + 3);
    unsigned long long ptr = 0;
    step = "alloc";
    r = d.MemAlloc(&ptr, src.size());
    if (r == cuda::kSuccess) {
      step = "copy";
      r = d.MemcpyHtoD(ptr, src.data(), src.size());
      if (r == cuda::kSuccess) r = d.MemcpyDtoH(back.data(), ptr, back.size());
      if (r == cuda::kSuccess && back != src) r = -2;
      d.MemFree(ptr);
    }
  }
  if (ctx != nullptr) {
    d.CtxSetCurrent(nullptr);  // no released context left current on this thread
    if (d.DevicePrimaryCtxRelease != nullptr) d.DevicePrimaryCtxRelease(dev);
  }
  return r;
}

}  // namespace

CudaDeviceQuery run_device_query(const DeviceQueryOptions& o) {
  CudaDeviceQuery q;
  const std::string& libcuda = o.libcuda;
  const std::string& cudart = o.cudart;
  q.library = libcuda;
  q.context_mode = cuda_context_mode_name(o.context);
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
          std::string bus_id;
          if (bus != nullptr && bus(buf, sizeof buf - 1, dev) == cuda::kSuccess) {
            bus_id = buf;
            line += bus_id + " ";
          }
          std::memset(buf, 0, sizeof buf);
          if (name != nullptr && name(buf, sizeof buf - 1, dev) == cuda::kSuccess) line += buf;
          int maj = 0, min = 0, sms = 0, mode = -1;
          if (attr != nullptr && attr(&maj, cuda::kAttrCcMajor, dev) == cuda::kSuccess && attr(&min, cuda::kAttrCcMinor, dev) == cuda::kSuccess) {
            line += " sm_" + std::to_string(maj) + std::to_string(min);
          }
          if (attr != nullptr && attr(&sms, cuda::kAttrMultiprocessors, dev) == cuda::kSuccess) line += " " + std::to_string(sms) + " SMs";
          if (attr != nullptr && attr(&mode, cuda::kAttrComputeMode, dev) != cuda::kSuccess) mode = -1;
          if (mode > nvml::kComputeDefault) line += " " + nvml::compute_mode_name(mode);
          const std::string who = bus_id.empty() ? "device " + std::to_string(i) : bus_id;
          // Why no context is made here: the options, the compute mode, another process's job.
          std::string why_not;
          if (o.context == CudaContextMode::never) {
            why_not = "--cuda-context never";
          } else if (mode == nvml::kComputeProhibited) {
            why_not = "compute mode Prohibited: the driver lets no process create a context";
          } else if (o.context == CudaContextMode::idle && o.busy_stalled) {
            why_not = o.busy_unknown;
          } else if (o.context == CudaContextMode::idle) {
            auto norm = normalise_bus_id(bus_id);
            auto it = norm ? o.busy.find(*norm) : o.busy.end();
            if (it != o.busy.end()) why_not = "in use by " + it->second;
          }
          if (!why_not.empty()) {
            line += ": no context created (" + why_not + ")";
            q.untested.push_back(concat(who, ": ", why_not));
            q.devices.push_back(line);
            continue;
          }
          std::string step;
          int r = context_alloc_copy(d, dev, step);
          if (r == cuda::kSuccess) {
            line += ": alloc+copy ok";
            ++q.contexts_tested;
          } else if (r == cuda::kDeviceUnavailable && step == "context" &&
                     (mode == nvml::kComputeExclusiveProcess || mode == nvml::kComputeExclusiveThread)) {
            // Exclusive mode with another process's context on the device: the driver said so,
            // which is the mode working as configured, not a defect.
            const std::string held = concat("compute mode ", nvml::compute_mode_name(mode),
                                            ", held by another process (CUDA_ERROR_DEVICE_UNAVAILABLE)");
            line += ": no context created (" + held + ")";
            q.untested.push_back(concat(who, ": ", held));
          } else {
            line += ": " + step + " failed (" +
                    (r == -2 ? std::string("data mismatch")
                             : r == -1 ? "the library lacks the context or memory calls" : cuda_result_name(r)) +
                    ")";
            q.status = "error";
          }
          if (o.context == CudaContextMode::idle && !o.busy_unknown.empty() && r != cuda::kDeviceUnavailable) {
            line += " (whether another process used it was unknown: " + o.busy_unknown + ")";
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
