// GPU benchmarks through the dlopened CUDA runtime, cuBLAS and NCCL: h2d (pinned and pageable,
// both directions, per GPU), d2d (device-local and peer copies), gemm (fp32/tf32/bf16 TFLOPS) and
// allreduce (single-process NCCL sweep, busbw as nccl-tests defines it). On a machine without a
// usable GPU each returns a skipped result with the precise reason.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>

#include "bench/bench.h"
#include "vendor/cuda_api.h"
#include "bench/gpu_plan.h"
#include "bench/stats.h"
#include "core/text.h"

namespace plumb {

namespace {

using cuda::Runtime;

constexpr std::uint64_t kGpuBenchesMiB = 1ull << 20;

// The first failing CUDA call of a benchmark, as a one-line error.
struct CudaFail {
  std::string what;
};

void check(const Runtime& rt, cuda::Error e, const char* call) {
  if (e != 0) throw CudaFail{std::string(call) + ": " + rt.describe(e)};
}

std::string bus_id(const Runtime& rt, int dev) {
  char buf[64] = {0};
  if (rt.DeviceGetPCIBusId(buf, sizeof buf, dev) != 0) return "gpu " + std::to_string(dev);
  std::string s(buf);
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Times `fn` (which enqueues work on `stream`) with CUDA events; returns seconds per call.
template <class F>
std::vector<double> time_on_stream(const Runtime& rt, cuda::Stream stream, int warmup, int samples, F fn) {
  cuda::Event a = nullptr, b = nullptr;
  check(rt, rt.EventCreate(&a), "cudaEventCreate");
  check(rt, rt.EventCreate(&b), "cudaEventCreate");
  for (int i = 0; i < warmup; ++i) fn();
  check(rt, rt.StreamSynchronize(stream), "cudaStreamSynchronize");
  std::vector<double> out;
  for (int i = 0; i < samples; ++i) {
    check(rt, rt.EventRecord(a, stream), "cudaEventRecord");
    fn();
    check(rt, rt.EventRecord(b, stream), "cudaEventRecord");
    check(rt, rt.EventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    check(rt, rt.EventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    if (ms > 0) out.push_back(ms / 1e3);
  }
  rt.EventDestroy(a);
  rt.EventDestroy(b);
  return out;
}

std::vector<double> to_gbps(const std::vector<double>& secs, double bytes) {
  std::vector<double> v;
  v.reserve(secs.size());
  for (double s : secs) v.push_back(bytes / s / 1e9);
  return v;
}

// Common start of every GPU benchmark: the runtime and its devices, or a skipped result.
struct GpuStart {
  const Runtime* rt = nullptr;
  int devices = 0;
  std::optional<BenchResult> skipped;
};

GpuStart gpu_start(const std::string& bench) {
  GpuStart g;
  auto n = cuda::usable_devices();
  if (!n) {
    g.skipped = skipped_result(bench, n.error().message);
    return g;
  }
  g.rt = *cuda::runtime();
  g.devices = *n;
  return g;
}

void add_versions(const Runtime& rt, BenchResult& r) {
  int v = 0;
  if (rt.RuntimeGetVersion(&v) == 0) r.notes["cuda_runtime"] = std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
  if (rt.DriverGetVersion(&v) == 0) r.notes["cuda_driver"] = std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
  r.notes["cudart_library"] = rt.library;
}

Result<BenchResult> run_h2d(const Context&, const BenchOptions& o) {
  GpuStart g = gpu_start("h2d");
  if (g.skipped) return *g.skipped;
  const Runtime& rt = *g.rt;
  BenchResult r;
  add_versions(rt, r);
  std::size_t bytes = static_cast<std::size_t>(o.size_bytes > 0 ? o.size_bytes : (o.quick ? 64 * kGpuBenchesMiB : 256 * kGpuBenchesMiB));
  int samples = o.samples > 0 ? o.samples : (o.quick ? 3 : 10);
  r.params["bytes"] = std::to_string(bytes);
  r.params["samples"] = std::to_string(samples);
  r.notes["method"] = "cudaMemcpyAsync timed with CUDA events; pageable = malloc'd host memory";
  Progress p(o.progress, "h2d");
  try {
    for (int d = 0; d < g.devices && !o.stop(); ++d) {
      check(rt, rt.SetDevice(d), "cudaSetDevice");
      r.notes["gpu" + std::to_string(d)] = bus_id(rt, d);
      void* dev = nullptr;
      void* pinned = nullptr;
      check(rt, rt.Malloc(&dev, bytes), "cudaMalloc");
      check(rt, rt.MallocHost(&pinned, bytes), "cudaMallocHost");
      std::vector<char> pageable(bytes, 1);
      std::memset(pinned, 1, bytes);
      cuda::Stream s = nullptr;
      check(rt, rt.StreamCreate(&s), "cudaStreamCreate");
      std::string g_ = "gpu" + std::to_string(d);
      struct Case {
        const char* name;
        void* host;
        int kind;
      };
      for (Case c : {Case{"pinned.h2d", pinned, cuda::kMemcpyHostToDevice}, Case{"pinned.d2h", pinned, cuda::kMemcpyDeviceToHost},
                     Case{"pageable.h2d", pageable.data(), cuda::kMemcpyHostToDevice},
                     Case{"pageable.d2h", pageable.data(), cuda::kMemcpyDeviceToHost}}) {
        p.update(g_ + " " + c.name);
        auto secs = time_on_stream(rt, s, std::max(1, o.warmup), samples, [&] {
          if (c.kind == cuda::kMemcpyHostToDevice) check(rt, rt.MemcpyAsync(dev, c.host, bytes, c.kind, s), "cudaMemcpyAsync");
          else check(rt, rt.MemcpyAsync(c.host, dev, bytes, c.kind, s), "cudaMemcpyAsync");
        });
        r.metrics.push_back(make_metric(std::string("h2d.") + c.name + "." + g_, "GB/s", true, to_gbps(secs, static_cast<double>(bytes))));
      }
      rt.StreamDestroy(s);
      rt.FreeHost(pinned);
      rt.Free(dev);
    }
  } catch (const CudaFail& f) {
    return make_error(ErrorKind::io, "h2d: " + f.what);
  }
  return r;
}

Result<BenchResult> run_d2d(const Context&, const BenchOptions& o) {
  GpuStart g = gpu_start("d2d");
  if (g.skipped) return *g.skipped;
  const Runtime& rt = *g.rt;
  BenchResult r;
  add_versions(rt, r);
  std::size_t bytes = static_cast<std::size_t>(o.size_bytes > 0 ? o.size_bytes : (o.quick ? 64 * kGpuBenchesMiB : 512 * kGpuBenchesMiB));
  int samples = o.samples > 0 ? o.samples : 10;
  r.params["bytes"] = std::to_string(bytes);
  r.notes["method"] = "device-local copy counts read + write (2 x bytes), like CUDA's bandwidthTest; peer copies count bytes once";
  Progress p(o.progress, "d2d");
  try {
    std::vector<void*> a(static_cast<std::size_t>(g.devices)), b(static_cast<std::size_t>(g.devices));
    std::vector<cuda::Stream> s(static_cast<std::size_t>(g.devices));
    for (int d = 0; d < g.devices; ++d) {
      auto i = static_cast<std::size_t>(d);
      check(rt, rt.SetDevice(d), "cudaSetDevice");
      check(rt, rt.Malloc(&a[i], bytes), "cudaMalloc");
      check(rt, rt.Malloc(&b[i], bytes), "cudaMalloc");
      check(rt, rt.Memset(a[i], 1, bytes), "cudaMemset");
      check(rt, rt.StreamCreate(&s[i]), "cudaStreamCreate");
      r.notes["gpu" + std::to_string(d)] = bus_id(rt, d);
      p.update("gpu" + std::to_string(d) + " local");
      auto secs = time_on_stream(rt, s[i], std::max(1, o.warmup), samples,
                                 [&] { check(rt, rt.MemcpyAsync(b[i], a[i], bytes, cuda::kMemcpyDeviceToDevice, s[i]), "cudaMemcpyAsync"); });
      r.metrics.push_back(make_metric("d2d.local.gpu" + std::to_string(d), "GB/s", true, to_gbps(secs, 2.0 * static_cast<double>(bytes))));
    }
    for (int x = 0; x < g.devices && !o.stop(); ++x) {
      for (int y = 0; y < g.devices; ++y) {
        if (x == y) continue;
        int can = 0;
        rt.DeviceCanAccessPeer(&can, x, y);
        if (can == 0) {
          r.notes["peer." + std::to_string(x) + "to" + std::to_string(y)] = "no peer access (copies staged through the host)";
        } else {
          rt.SetDevice(x);
          rt.DeviceEnablePeerAccess(y, 0);  // "already enabled" is fine
        }
        check(rt, rt.SetDevice(x), "cudaSetDevice");
        auto xi = static_cast<std::size_t>(x), yi = static_cast<std::size_t>(y);
        p.update("gpu" + std::to_string(x) + " -> gpu" + std::to_string(y));
        auto secs = time_on_stream(rt, s[xi], std::max(1, o.warmup), samples, [&] {
          check(rt, rt.MemcpyPeerAsync(b[yi], y, a[xi], x, bytes, s[xi]), "cudaMemcpyPeerAsync");
        });
        r.metrics.push_back(make_metric("d2d.peer.gpu" + std::to_string(x) + "_gpu" + std::to_string(y), "GB/s", true,
                                        to_gbps(secs, static_cast<double>(bytes))));
      }
    }
    for (int d = 0; d < g.devices; ++d) {
      auto i = static_cast<std::size_t>(d);
      rt.SetDevice(d);
      rt.StreamDestroy(s[i]);
      rt.Free(a[i]);
      rt.Free(b[i]);
    }
  } catch (const CudaFail& f) {
    return make_error(ErrorKind::io, "d2d: " + f.what);
  }
  return r;
}

Result<BenchResult> run_gemm(const Context&, const BenchOptions& o) {
  auto types = gemm_types(o.dtype);
  if (!types) return types.error();
  GpuStart g = gpu_start("gemm");
  if (g.skipped) return *g.skipped;
  auto bl = cuda::blas();
  if (!bl) return skipped_result("gemm", bl.error().message);
  const Runtime& rt = *g.rt;
  const cuda::Blas& b = **bl;
  BenchResult r;
  add_versions(rt, r);
  r.notes["cublas_library"] = b.library;
  int n = o.size_bytes > 0 ? static_cast<int>(std::min<std::uint64_t>(o.size_bytes, 32768)) : (o.quick ? 4096 : 8192);
  int samples = o.samples > 0 ? o.samples : 10;
  r.params["m=n=k"] = std::to_string(n);
  r.params["samples"] = std::to_string(samples);
  r.notes["method"] = "cublasGemmEx, column-major, no transpose, alpha=1 beta=0, random inputs; TFLOPS = 2mnk / t";
  Progress p(o.progress, "gemm");
  auto nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  std::vector<float> host(nn);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (auto& x : host) x = dist(rng);
  std::vector<std::uint16_t> host_bf16(nn);
  for (std::size_t i = 0; i < nn; ++i) {
    std::uint32_t u = 0;
    std::memcpy(&u, &host[i], 4);
    host_bf16[i] = static_cast<std::uint16_t>(u >> 16);  // truncation is enough for a benchmark input
  }
  try {
    for (int d = 0; d < g.devices && !o.stop(); ++d) {
      check(rt, rt.SetDevice(d), "cudaSetDevice");
      r.notes["gpu" + std::to_string(d)] = bus_id(rt, d);
      cuda::Stream s = nullptr;
      check(rt, rt.StreamCreate(&s), "cudaStreamCreate");
      cuda::BlasHandle h = nullptr;
      if (b.Create(&h) != 0) throw CudaFail{"cublasCreate_v2 failed"};
      b.SetStream(h, s);
      void *A = nullptr, *B = nullptr, *C = nullptr;
      check(rt, rt.Malloc(&A, nn * 4), "cudaMalloc");
      check(rt, rt.Malloc(&B, nn * 4), "cudaMalloc");
      check(rt, rt.Malloc(&C, nn * 4), "cudaMalloc");
      for (const GemmType& t : *types) {
        const void* src = t.data_type == cuda::kDataR16BF ? static_cast<const void*>(host_bf16.data()) : host.data();
        std::size_t elem = t.data_type == cuda::kDataR16BF ? 2 : 4;
        check(rt, rt.MemcpyAsync(A, src, nn * elem, cuda::kMemcpyHostToDevice, s), "cudaMemcpyAsync");
        check(rt, rt.MemcpyAsync(B, src, nn * elem, cuda::kMemcpyHostToDevice, s), "cudaMemcpyAsync");
        float alpha = 1.f, beta = 0.f;
        int status = 0;
        p.update("gpu" + std::to_string(d) + " " + t.name);
        auto secs = time_on_stream(rt, s, std::max(2, o.warmup), samples, [&] {
          int st = b.GemmEx(h, cuda::kBlasOpN, cuda::kBlasOpN, n, n, n, &alpha, A, t.data_type, n, B, t.data_type, n, &beta, C,
                            t.data_type, n, t.compute_type, cuda::kGemmDefault);
          if (st != 0) status = st;
        });
        if (status != 0) {
          r.notes["gemm." + t.name + ".gpu" + std::to_string(d)] = "cublasGemmEx status " + std::to_string(status);
          continue;
        }
        std::vector<double> tf;
        tf.reserve(secs.size());
        for (double sec : secs) tf.push_back(gemm_tflops(n, n, n, sec));
        r.metrics.push_back(make_metric("gemm." + t.name + ".gpu" + std::to_string(d), "TFLOPS", true, tf));
      }
      rt.Free(A);
      rt.Free(B);
      rt.Free(C);
      b.Destroy(h);
      rt.StreamDestroy(s);
    }
  } catch (const CudaFail& f) {
    return make_error(ErrorKind::io, "gemm: " + f.what);
  }
  return r;
}

Result<BenchResult> run_allreduce(const Context&, const BenchOptions& o) {
  GpuStart g = gpu_start("allreduce");
  if (g.skipped) return *g.skipped;
  if (g.devices < 2) return skipped_result("allreduce", "needs at least 2 GPUs in one process; found " + std::to_string(g.devices));
  auto nc = cuda::nccl();
  if (!nc) return skipped_result("allreduce", nc.error().message);
  const Runtime& rt = *g.rt;
  const cuda::Nccl& n = **nc;
  BenchResult r;
  add_versions(rt, r);
  int ver = 0;
  if (n.GetVersion(&ver) == 0) r.notes["nccl"] = nccl_version_string(ver);
  int ranks = g.devices;
  auto sizes = allreduce_sizes(o.quick ? 64 * kGpuBenchesMiB : (o.size_bytes > 0 ? o.size_bytes : 1024 * kGpuBenchesMiB));
  int iters = o.samples > 0 ? o.samples : 20;
  r.params["ranks"] = std::to_string(ranks);
  r.params["iterations"] = std::to_string(iters);
  r.notes["method"] = "ncclAllReduce float32 sum in one process (ncclCommInitAll); algbw = bytes / time, busbw = algbw x 2(n-1)/n";
  Progress p(o.progress, "allreduce");
  std::vector<cuda::Comm> comms(static_cast<std::size_t>(ranks));
  std::vector<int> devs(static_cast<std::size_t>(ranks));
  for (int i = 0; i < ranks; ++i) devs[static_cast<std::size_t>(i)] = i;
  if (n.CommInitAll(comms.data(), ranks, devs.data()) != 0) return make_error(ErrorKind::io, "allreduce: ncclCommInitAll failed");
  std::vector<void*> send(comms.size()), recv(comms.size());
  std::vector<cuda::Stream> st(comms.size());
  std::vector<double> busbw_per_size;
  try {
    std::uint64_t top = sizes.back();
    for (std::size_t i = 0; i < comms.size(); ++i) {
      check(rt, rt.SetDevice(static_cast<int>(i)), "cudaSetDevice");
      check(rt, rt.Malloc(&send[i], top), "cudaMalloc");
      check(rt, rt.Malloc(&recv[i], top), "cudaMalloc");
      check(rt, rt.Memset(send[i], 0, top), "cudaMemset");
      check(rt, rt.StreamCreate(&st[i]), "cudaStreamCreate");
    }
    auto launch = [&](std::uint64_t bytes) {
      n.GroupStart();
      for (std::size_t i = 0; i < comms.size(); ++i) {
        n.AllReduce(send[i], recv[i], bytes / 4, cuda::kNcclFloat32, cuda::kNcclSum, comms[i], st[i]);
      }
      n.GroupEnd();
    };
    auto sync = [&] {
      for (std::size_t i = 0; i < comms.size(); ++i) {
        rt.SetDevice(static_cast<int>(i));
        check(rt, rt.StreamSynchronize(st[i]), "cudaStreamSynchronize");
      }
    };
    BenchMetric best;
    for (std::uint64_t bytes : sizes) {
      if (o.stop()) break;
      p.update(human_bytes(bytes));
      for (int w = 0; w < 5; ++w) launch(bytes);
      sync();
      std::vector<double> busbw;
      // nccl-tests times a loop of iterations; we keep every fifth as a sample for the CV.
      int per = std::max(1, iters / 5);
      for (int s = 0; s < 5; ++s) {
        auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < per; ++k) launch(bytes);
        sync();
        double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / per;
        busbw.push_back(allreduce_busbw(algbw_bytes_per_s(static_cast<double>(bytes), sec), ranks) / 1e9);
      }
      BenchRow row;
      row.setting["bytes"] = std::to_string(bytes);
      row.values["busbw_gb_per_s"] = median_of(busbw);
      row.values["algbw_gb_per_s"] = median_of(busbw) * ranks / (2.0 * (ranks - 1));
      r.rows.push_back(row);
      auto m = make_metric("allreduce.busbw." + std::to_string(bytes), "GB/s", true, busbw);
      if (m.median >= best.median) best = m;
    }
    if (best.samples > 0) {
      best.name = "allreduce.busbw.peak";
      r.metrics.insert(r.metrics.begin(), best);
    }
  } catch (const CudaFail& f) {
    for (auto c : comms) n.CommDestroy(c);
    return make_error(ErrorKind::io, "allreduce: " + f.what);
  }
  for (std::size_t i = 0; i < comms.size(); ++i) {
    rt.SetDevice(static_cast<int>(i));
    rt.Free(send[i]);
    rt.Free(recv[i]);
    rt.StreamDestroy(st[i]);
    n.CommDestroy(comms[i]);
  }
  return r;
}


}  // namespace
void bench_gpu_benches_tables(BenchTables& b) {
  b.add_bench({"h2d",
                                  {"host<->device copy bandwidth per GPU (pinned and pageable)", "每块 GPU 的主机<->设备拷贝带宽（锁页与可分页内存）"},
                                  {"[--size BYTES] [--samples N]", "[--size 字节] [--samples N]"},
                                  true, false, true, run_h2d});
  b.add_bench({"d2d",
                                  {"device-local and GPU-to-GPU copy bandwidth", "显存内拷贝与 GPU 间拷贝带宽"},
                                  {"[--size BYTES] [--samples N]", "[--size 字节] [--samples N]"},
                                  true, false, false, run_d2d});
  b.add_bench({"gemm",
                                   {"matrix multiply TFLOPS per GPU (fp32, tf32, bf16 via cuBLAS)", "每块 GPU 的矩阵乘 TFLOPS（cuBLAS fp32、tf32、bf16）"},
                                   {"[--dtype fp32|tf32|bf16] [--size N (m=n=k)]", "[--dtype fp32|tf32|bf16] [--size N (m=n=k)]"},
                                   true, false, false, run_gemm});
  b.add_bench({"allreduce",
                                        {"NCCL all-reduce bus bandwidth across the GPUs of this machine", "本机多 GPU 的 NCCL all-reduce 总线带宽"},
                                        {"[--size MAX_BYTES] [--samples ITERATIONS]", "[--size 最大字节] [--samples 迭代次数]"},
                                        true, false, false, run_allreduce});
}

}  // namespace plumb
