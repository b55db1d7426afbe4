// Fake CUDA libraries for tests: the version getters of libcudart, cuDNN and NCCL answer the versions
// of the toolkit headers under tests/fixtures/gpu/cuda-12.4-runfile (compiled in from those headers),
// and the libcuda stub's cuInit answers CUDA_ERROR_STUB_LIBRARY (34) as the toolkit's link-time stub
// does. One source, one variant per library (FAKE_CUDART, FAKE_CUDNN, FAKE_NCCL, FAKE_CUDA_STUB).
//
// Two more stand in for a GPU machine in the multi-node all-reduce tests (no GPU here):
// FAKE_CUDART_GPU is a runtime with FAKE_CUDA_DEVICES devices (default 1) whose memory is host
// memory; FAKE_NCCL_WORLD keeps NCCL's contract for ncclGetUniqueId / ncclCommInitRank: the unique
// id names a rendezvous directory under FAKE_NCCL_DIR, each rank registers there and
// ncclCommInitRank returns only when all nranks have joined (it blocks forever otherwise, as NCCL
// does); FAKE_NCCL_HANG=1 makes this process never join; each all-reduce sleeps as long as a ring
// all-reduce at FAKE_NCCL_BUSBW GB/s of bus bandwidth (default 5) would take.
#include <cstddef>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

#if defined(FAKE_CUDART)
#include "cuda_runtime_api.h"
// cudaRuntimeGetVersion: CUDART_VERSION, 1000 * major + 10 * minor.
FAKE_EXPORT int cudaRuntimeGetVersion(int* v) {
  if (v == nullptr) return 1;  // cudaErrorInvalidValue
  *v = CUDART_VERSION;
  return 0;
}
// Without a driver the real runtime answers cudaErrorInsufficientDriver (35) here.
FAKE_EXPORT int cudaGetDeviceCount(int* n) {
  if (n != nullptr) *n = 0;
  return 35;
}
FAKE_EXPORT int cudaDriverGetVersion(int* v) {
  if (v != nullptr) *v = 0;  // no driver
  return 0;
}
#elif defined(FAKE_CUDNN)
#include "cudnn_version.h"
FAKE_EXPORT std::size_t cudnnGetVersion() { return CUDNN_VERSION; }
#elif defined(FAKE_NCCL)
#include "nccl.h"
// NCCL's src/init.cc keeps this string in .rodata ("so that running strings on the lib can quickly
// reveal the version"); plumb reads it without loading the library.
#define FAKE_STR2(x) #x
#define FAKE_STR(x) FAKE_STR2(x)
[[gnu::used]] static const char kFakeNcclVersionString[] =
    "NCCL version " FAKE_STR(NCCL_MAJOR) "." FAKE_STR(NCCL_MINOR) "." FAKE_STR(NCCL_PATCH) NCCL_SUFFIX "+cuda12.4";
FAKE_EXPORT int ncclGetVersion(int* v) {
  if (v == nullptr) return 4;  // ncclInvalidArgument
  *v = NCCL_VERSION_CODE;
  return 0;
}
#elif defined(FAKE_CUDA_STUB)
#include "cuda_runtime_api.h"
FAKE_EXPORT int cuInit(unsigned int) { return 34; }  // CUDA_ERROR_STUB_LIBRARY
FAKE_EXPORT int cuDriverGetVersion(int* v) {
  if (v == nullptr) return 1;
  *v = CUDART_VERSION;
  return 0;
}
FAKE_EXPORT int cuDeviceGetCount(int* n) {
  if (n != nullptr) *n = 0;
  return 34;
}
#elif defined(FAKE_CUDART_GPU)
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v == nullptr ? fallback : std::atoi(v);
}
int current_device = 0;
}  // namespace

FAKE_EXPORT int cudaGetDeviceCount(int* n) {
  if (n == nullptr) return 1;
  *n = env_int("FAKE_CUDA_DEVICES", 1);
  return 0;
}
FAKE_EXPORT int cudaDriverGetVersion(int* v) {
  if (v != nullptr) *v = 12040;
  return 0;
}
FAKE_EXPORT int cudaRuntimeGetVersion(int* v) {
  if (v != nullptr) *v = 12040;
  return 0;
}
FAKE_EXPORT int cudaSetDevice(int d) {
  if (d < 0 || d >= env_int("FAKE_CUDA_DEVICES", 1)) return 101;  // cudaErrorInvalidDevice
  current_device = d;
  return 0;
}
FAKE_EXPORT int cudaMalloc(void** p, std::size_t n) {
  if (p == nullptr) return 1;
  *p = std::malloc(n == 0 ? 1 : n);
  return *p == nullptr ? 2 : 0;  // cudaErrorMemoryAllocation
}
FAKE_EXPORT int cudaFree(void* p) {
  std::free(p);
  return 0;
}
FAKE_EXPORT int cudaMallocHost(void** p, std::size_t n) { return cudaMalloc(p, n); }
FAKE_EXPORT int cudaFreeHost(void* p) { return cudaFree(p); }
FAKE_EXPORT int cudaMemset(void* p, int v, std::size_t n) {
  std::memset(p, v, n);
  return 0;
}
FAKE_EXPORT int cudaMemcpyAsync(void* d, const void* s, std::size_t n, int, void*) {
  std::memcpy(d, s, n);
  return 0;
}
FAKE_EXPORT int cudaDeviceSynchronize() { return 0; }
FAKE_EXPORT int cudaStreamCreate(void** s) {
  if (s == nullptr) return 1;
  *s = std::malloc(1);
  return 0;
}
FAKE_EXPORT int cudaStreamSynchronize(void*) { return 0; }
FAKE_EXPORT int cudaStreamDestroy(void* s) {
  std::free(s);
  return 0;
}
FAKE_EXPORT int cudaEventCreate(void** e) { return cudaStreamCreate(e); }
FAKE_EXPORT int cudaEventRecord(void*, void*) { return 0; }
FAKE_EXPORT int cudaEventSynchronize(void*) { return 0; }
FAKE_EXPORT int cudaEventElapsedTime(float* ms, void*, void*) {
  if (ms != nullptr) *ms = 1.0F;
  return 0;
}
FAKE_EXPORT int cudaEventDestroy(void* e) { return cudaStreamDestroy(e); }
FAKE_EXPORT int cudaDeviceGetPCIBusId(char* buf, int len, int d) {
  if (buf == nullptr || len < 13) return 1;
  std::snprintf(buf, static_cast<std::size_t>(len), "0000:%02X:00.0", 0x18 + d);
  return 0;
}
FAKE_EXPORT int cudaDeviceCanAccessPeer(int* can, int, int) {
  if (can != nullptr) *can = 0;
  return 0;
}
FAKE_EXPORT int cudaDeviceEnablePeerAccess(int, unsigned) { return 0; }
FAKE_EXPORT int cudaMemcpyPeerAsync(void* d, int, const void* s, int, std::size_t n, void*) {
  std::memcpy(d, s, n);
  return 0;
}
FAKE_EXPORT const char* cudaGetErrorString(int e) { return e == 0 ? "no error" : "fake CUDA runtime error"; }
#elif defined(FAKE_NCCL_WORLD)
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {
struct FakeComm {
  int rank;
  int nranks;
};
struct UniqueId {
  char internal[128];
};
// Inside ncclGroupStart/End, NCCL defers the joins to ncclGroupEnd (several devices of one thread
// join together); outside a group, ncclCommInitRank itself waits.
int group_depth = 0;
std::string pending_dir;
int pending_nranks = 0;
int ready_ranks(const std::string& dir, int nranks) {
  int n = 0;
  for (int r = 0; r < nranks; ++r) {
    struct stat st {};
    if (::stat((dir + "/rank-" + std::to_string(r)).c_str(), &st) == 0) ++n;
  }
  return n;
}
}  // namespace

FAKE_EXPORT int ncclGetVersion(int* v) {
  if (v == nullptr) return 4;
  *v = 22105;  // 2.21.5
  return 0;
}
FAKE_EXPORT const char* ncclGetErrorString(int rc) { return rc == 0 ? "no error" : "fake NCCL error"; }
FAKE_EXPORT int ncclGetUniqueId(UniqueId* id) {
  const char* base = std::getenv("FAKE_NCCL_DIR");
  if (id == nullptr || base == nullptr) return 4;  // ncclInvalidArgument
  std::memset(id->internal, 0, sizeof id->internal);
  std::string dir = std::string(base) + "/world-" + std::to_string(::getpid());
  if (dir.size() >= sizeof id->internal || (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)) return 2;  // ncclSystemError
  std::memcpy(id->internal, dir.data(), dir.size());
  return 0;
}
FAKE_EXPORT int ncclCommInitRank(void** comm, int nranks, UniqueId id, int rank) {
  if (comm == nullptr || nranks < 1 || rank < 0 || rank >= nranks) return 4;
  std::string dir(id.internal, strnlen(id.internal, sizeof id.internal));
  struct stat st {};
  if (dir.empty() || ::stat(dir.c_str(), &st) != 0) return 2;
  const char* hang = std::getenv("FAKE_NCCL_HANG");
  while (hang != nullptr && std::strcmp(hang, "1") == 0) std::this_thread::sleep_for(std::chrono::seconds(1));
  std::string mine = dir + "/rank-" + std::to_string(rank);
  FILE* f = std::fopen(mine.c_str(), "wx");
  if (f == nullptr) return 4;  // a rank taken twice
  std::fprintf(f, "%d %d\n", nranks, static_cast<int>(::getpid()));
  std::fclose(f);
  *comm = new FakeComm{rank, nranks};
  if (group_depth > 0) {
    pending_dir = dir;
    pending_nranks = nranks;
    return 0;
  }
  while (ready_ranks(dir, nranks) < nranks) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return 0;
}
FAKE_EXPORT int ncclCommInitAll(void**, int, const int*) { return 5; }  // ncclInvalidUsage: not used by these tests
FAKE_EXPORT int ncclCommDestroy(void* comm) {
  delete static_cast<FakeComm*>(comm);
  return 0;
}
FAKE_EXPORT int ncclGroupStart() {
  ++group_depth;
  return 0;
}
FAKE_EXPORT int ncclGroupEnd() {
  if (group_depth == 0) return 5;  // ncclInvalidUsage
  if (--group_depth == 0 && !pending_dir.empty()) {
    while (ready_ranks(pending_dir, pending_nranks) < pending_nranks) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    pending_dir.clear();
  }
  return 0;
}
FAKE_EXPORT int ncclAllReduce(const void*, void*, std::size_t count, int, int, void* comm, void*) {
  auto* c = static_cast<FakeComm*>(comm);
  if (c == nullptr) return 4;
  const char* rate = std::getenv("FAKE_NCCL_BUSBW");
  double busbw = rate == nullptr ? 5.0 : std::atof(rate);
  double bytes = static_cast<double>(count) * 4.0;
  double seconds = bytes * 2.0 * (c->nranks - 1) / c->nranks / (busbw * 1e9);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  return 0;
}
#elif defined(FAKE_CUDA_DRIVER)
// A driver API (libcuda.so.1's calls the device query makes) with FAKE_CUDA_DEVICES devices (default
// 1) whose memory is host memory. FAKE_CUDA_BUS_IDS names their PCI bus ids (comma-separated;
// default 0000:10:00.0, 0000:11:00.0, ...), FAKE_CUDA_COMPUTE_MODES their CUcomputemode values
// (default 0); a device listed in FAKE_CUDA_HELD is held by another process: a context on it is
// refused with CUDA_ERROR_DEVICE_UNAVAILABLE (46) in an exclusive mode. FAKE_CUDA_ALLOC_FAIL lists
// devices whose allocation fails with CUDA_ERROR_OUT_OF_MEMORY (2). Each context made is written as
// "context <bus id>" to the file FAKE_CUDA_CONTEXT_LOG, so a test sees which GPUs were touched.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {
std::vector<std::string> env_list(const char* name) {
  std::vector<std::string> out;
  const char* v = std::getenv(name);
  if (v == nullptr) return out;
  std::string s(v);
  std::size_t b = 0;
  while (b <= s.size()) {
    std::size_t e = s.find(',', b);
    out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return out;
}
int devices() {
  const char* v = std::getenv("FAKE_CUDA_DEVICES");
  return v == nullptr ? 1 : std::atoi(v);
}
bool listed(const char* name, int dev) {
  for (const auto& x : env_list(name)) {
    if (!x.empty() && std::atoi(x.c_str()) == dev) return true;
  }
  return false;
}
int compute_mode(int dev) {
  auto modes = env_list("FAKE_CUDA_COMPUTE_MODES");
  return dev < static_cast<int>(modes.size()) ? std::atoi(modes[static_cast<std::size_t>(dev)].c_str()) : 0;
}
std::string bus_id(int dev) {
  auto ids = env_list("FAKE_CUDA_BUS_IDS");
  if (dev < static_cast<int>(ids.size())) return ids[static_cast<std::size_t>(dev)];
  char buf[32];
  std::snprintf(buf, sizeof buf, "0000:%02X:00.0", 0x10 + dev);
  return buf;
}
int current = -1;
}  // namespace

FAKE_EXPORT int cuInit(unsigned int) { return 0; }
FAKE_EXPORT int cuDriverGetVersion(int* v) {
  if (v == nullptr) return 1;
  *v = 13000;
  return 0;
}
FAKE_EXPORT int cuDeviceGetCount(int* n) {
  if (n == nullptr) return 1;
  *n = devices();
  return 0;
}
FAKE_EXPORT int cuDeviceGet(int* d, int ordinal) {
  if (d == nullptr || ordinal < 0 || ordinal >= devices()) return 101;  // CUDA_ERROR_INVALID_DEVICE
  *d = ordinal;
  return 0;
}
FAKE_EXPORT int cuDeviceGetName(char* name, int len, int dev) {
  if (name == nullptr || len <= 0 || dev < 0 || dev >= devices()) return 1;
  std::snprintf(name, static_cast<std::size_t>(len), "%s", "NVIDIA H200");
  return 0;
}
FAKE_EXPORT int cuDeviceGetPCIBusId(char* out, int len, int dev) {
  if (out == nullptr || len <= 0 || dev < 0 || dev >= devices()) return 1;
  std::snprintf(out, static_cast<std::size_t>(len), "%s", bus_id(dev).c_str());
  return 0;
}
FAKE_EXPORT int cuDeviceGetAttribute(int* v, int attr, int dev) {
  if (v == nullptr || dev < 0 || dev >= devices()) return 1;
  switch (attr) {
    case 16: *v = 132; return 0;  // multiprocessors
    case 20: *v = compute_mode(dev); return 0;
    case 75: *v = 9; return 0;    // compute capability
    case 76: *v = 0; return 0;
    default: return 1;
  }
}
FAKE_EXPORT int cuDevicePrimaryCtxRetain(void** ctx, int dev) {
  if (ctx == nullptr || dev < 0 || dev >= devices()) return 1;
  int mode = compute_mode(dev);
  if (mode == 2 || ((mode == 1 || mode == 3) && listed("FAKE_CUDA_HELD", dev))) return 46;
  if (const char* log = std::getenv("FAKE_CUDA_CONTEXT_LOG")) {
    if (FILE* f = std::fopen(log, "a")) {
      std::fprintf(f, "context %s\n", bus_id(dev).c_str());
      std::fclose(f);
    }
  }
  *ctx = reinterpret_cast<void*>(static_cast<std::size_t>(dev) + 1);  // NOLINT(performance-no-int-to-ptr)
  return 0;
}
// Releasing a context still current on the calling thread leaves the thread bound to a released
// context: logged, so the tests' lists of contexts show it.
FAKE_EXPORT int cuDevicePrimaryCtxRelease_v2(int dev) {
  if (current == dev) {
    if (const char* log = std::getenv("FAKE_CUDA_CONTEXT_LOG")) {
      if (FILE* f = std::fopen(log, "a")) {
        std::fprintf(f, "released-while-current %s\n", bus_id(dev).c_str());
        std::fclose(f);
      }
    }
  }
  return 0;
}
FAKE_EXPORT int cuCtxSetCurrent(void* ctx) {
  current = static_cast<int>(reinterpret_cast<std::size_t>(ctx)) - 1;  // null: none
  return 0;
}
FAKE_EXPORT int cuMemAlloc_v2(unsigned long long* p, std::size_t n) {
  if (p == nullptr) return 1;
  if (listed("FAKE_CUDA_ALLOC_FAIL", current)) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
  *p = reinterpret_cast<unsigned long long>(std::malloc(n));
  return *p == 0 ? 2 : 0;
}
FAKE_EXPORT int cuMemFree_v2(unsigned long long p) {
  std::free(reinterpret_cast<void*>(p));  // NOLINT(performance-no-int-to-ptr)
  return 0;
}
FAKE_EXPORT int cuMemcpyHtoD_v2(unsigned long long dst, const void* src, std::size_t n) {
  std::memcpy(reinterpret_cast<void*>(dst), src, n);  // NOLINT(performance-no-int-to-ptr)
  return 0;
}
FAKE_EXPORT int cuMemcpyDtoH_v2(void* dst, unsigned long long src, std::size_t n) {
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);  // NOLINT(performance-no-int-to-ptr)
  return 0;
}
#else
#error "define one of FAKE_CUDART, FAKE_CUDNN, FAKE_NCCL, FAKE_CUDA_STUB, FAKE_CUDART_GPU, FAKE_NCCL_WORLD"
#endif
