// The one set of CUDA declarations plumb uses: driver API (libcuda), runtime (libcudart), cuBLAS,
// cuDNN and NCCL entry points, written from NVIDIA's documented signatures (no CUDA headers or nvcc
// needed), with one dlopen loader per library shared by the GPU collector and the GPU benchmarks.
#pragma once

#include <cstddef>
#include <string>

#include "core/result.h"

namespace plumb::cuda {

using Error = int;     // cudaError_t / CUresult: 0 success, 34 stub library, 35 insufficient driver, 100 no device
using Stream = void*;  // cudaStream_t
using Event = void*;   // cudaEvent_t
constexpr int kMemcpyHostToDevice = 1;
constexpr int kMemcpyDeviceToHost = 2;
constexpr int kMemcpyDeviceToDevice = 3;

// CUresult / cudaError_t values plumb tells apart (the same numbers in both APIs).
constexpr Error kSuccess = 0;
constexpr Error kStubLibrary = 34;        // CUDA_ERROR_STUB_LIBRARY / cudaErrorStubLibrary
constexpr Error kInsufficientDriver = 35; // cudaErrorInsufficientDriver
constexpr Error kDeviceUnavailable = 46;  // CUDA_ERROR_DEVICE_UNAVAILABLE: exclusive or prohibited compute mode
constexpr Error kNoDevice = 100;          // CUDA_ERROR_NO_DEVICE / cudaErrorNoDevice

// CUdevice_attribute values.
constexpr int kAttrMultiprocessors = 16;
constexpr int kAttrComputeMode = 20;  // CUcomputemode: 0 default, 2 prohibited, 3 exclusive process
constexpr int kAttrCcMajor = 75;
constexpr int kAttrCcMinor = 76;

// Every table: the file that was loaded and the entry points it lacks (comma-separated, empty when
// complete). A null pointer is a missing entry point: each caller checks the ones it needs.

// Driver API (libcuda.so.1), for the device query.
struct Driver {
  std::string library;
  std::string missing;
  Error (*Init)(unsigned) = nullptr;                                     // cuInit
  Error (*DriverGetVersion)(int*) = nullptr;                             // cuDriverGetVersion
  Error (*DeviceGetCount)(int*) = nullptr;                               // cuDeviceGetCount
  Error (*DeviceGet)(int*, int) = nullptr;                               // cuDeviceGet
  Error (*DeviceGetName)(char*, int, int) = nullptr;                     // cuDeviceGetName
  Error (*DeviceGetAttribute)(int*, int, int) = nullptr;                 // cuDeviceGetAttribute
  Error (*DeviceGetPCIBusId)(char*, int, int) = nullptr;                 // cuDeviceGetPCIBusId
  Error (*DevicePrimaryCtxRetain)(void**, int) = nullptr;                // cuDevicePrimaryCtxRetain
  Error (*DevicePrimaryCtxRelease)(int) = nullptr;                       // _v2 | unversioned
  Error (*CtxSetCurrent)(void*) = nullptr;                               // cuCtxSetCurrent
  Error (*MemAlloc)(unsigned long long*, std::size_t) = nullptr;         // cuMemAlloc_v2
  Error (*MemFree)(unsigned long long) = nullptr;                        // cuMemFree_v2
  Error (*MemcpyHtoD)(unsigned long long, const void*, std::size_t) = nullptr;  // cuMemcpyHtoD_v2
  Error (*MemcpyDtoH)(void*, unsigned long long, std::size_t) = nullptr;        // cuMemcpyDtoH_v2
};

// Runtime (libcudart.so.N).
struct Runtime {
  std::string library;
  std::string missing;
  Error (*GetDeviceCount)(int*) = nullptr;
  Error (*DriverGetVersion)(int*) = nullptr;
  Error (*RuntimeGetVersion)(int*) = nullptr;
  Error (*SetDevice)(int) = nullptr;
  Error (*Malloc)(void**, std::size_t) = nullptr;
  Error (*Free)(void*) = nullptr;
  Error (*MallocHost)(void**, std::size_t) = nullptr;
  Error (*FreeHost)(void*) = nullptr;
  Error (*Memset)(void*, int, std::size_t) = nullptr;
  Error (*MemcpyAsync)(void*, const void*, std::size_t, int, Stream) = nullptr;
  Error (*DeviceSynchronize)() = nullptr;
  Error (*StreamCreate)(Stream*) = nullptr;
  Error (*StreamSynchronize)(Stream) = nullptr;
  Error (*StreamDestroy)(Stream) = nullptr;
  Error (*EventCreate)(Event*) = nullptr;
  Error (*EventRecord)(Event, Stream) = nullptr;
  Error (*EventSynchronize)(Event) = nullptr;
  Error (*EventElapsedTime)(float*, Event, Event) = nullptr;
  Error (*EventDestroy)(Event) = nullptr;
  Error (*DeviceGetPCIBusId)(char*, int, int) = nullptr;
  Error (*DeviceCanAccessPeer)(int*, int, int) = nullptr;
  Error (*DeviceEnablePeerAccess)(int, unsigned) = nullptr;
  Error (*MemcpyPeerAsync)(void*, int, const void*, int, std::size_t, Stream) = nullptr;
  const char* (*GetErrorString)(Error) = nullptr;
  [[nodiscard]] std::string describe(Error e) const;  // "cudaErrorInsufficientDriver (35): ..."
};

// cuBLAS (cublas_api.h): handles, GemmEx and the version.
using BlasHandle = void*;
constexpr int kBlasOpN = 0;              // CUBLAS_OP_N
constexpr int kDataR32F = 0;             // CUDA_R_32F
constexpr int kDataR16BF = 14;           // CUDA_R_16BF
constexpr int kCompute32F = 68;          // CUBLAS_COMPUTE_32F
constexpr int kCompute32FFastTF32 = 77;  // CUBLAS_COMPUTE_32F_FAST_TF32
constexpr int kGemmDefault = -1;         // CUBLAS_GEMM_DEFAULT

struct Blas {
  std::string library;
  std::string missing;
  int (*Create)(BlasHandle*) = nullptr;             // cublasCreate_v2
  int (*Destroy)(BlasHandle) = nullptr;             // cublasDestroy_v2
  int (*SetStream)(BlasHandle, Stream) = nullptr;   // cublasSetStream_v2
  int (*GemmEx)(BlasHandle, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                const void*, void*, int, int, int, int) = nullptr;
  int (*GetVersion)(BlasHandle, int*) = nullptr;    // cublasGetVersion_v2
  // libraryPropertyType: MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2; needs no handle (no GPU).
  int (*GetProperty)(int, int*) = nullptr;          // cublasGetProperty
};

// cuDNN (cudnn_version.h / cudnn_graph.h).
struct Cudnn {
  std::string library;
  std::string missing;
  std::size_t (*GetVersion)() = nullptr;  // cudnnGetVersion: 8907 (8.9.7), 90100 (9.1.0)
};

// NCCL (nccl.h).
using Comm = void*;
// ncclUniqueId: 128 opaque bytes, passed by value to ncclCommInitRank (NCCL_UNIQUE_ID_BYTES).
struct UniqueId {
  char internal[128];
};
constexpr int kNcclFloat32 = 7;  // ncclFloat32
constexpr int kNcclSum = 0;      // ncclSum

struct Nccl {
  std::string library;
  std::string missing;
  int (*GetVersion)(int*) = nullptr;
  int (*CommInitAll)(Comm*, int, const int*) = nullptr;
  int (*GetUniqueId)(UniqueId*) = nullptr;                  // ncclGetUniqueId: the bootstrap root's address
  int (*CommInitRank)(Comm*, int, UniqueId, int) = nullptr;  // ncclCommInitRank(comm, nranks, id, rank)
  int (*CommDestroy)(Comm) = nullptr;
  int (*AllReduce)(const void*, void*, std::size_t, int, int, Comm, Stream) = nullptr;
  int (*GroupStart)() = nullptr;
  int (*GroupEnd)() = nullptr;
  const char* (*GetErrorString)(int) = nullptr;
};

// One file: dlopen(RTLD_NOW | RTLD_LOCAL), never closed (a copy may be in use by a thread, and
// unloading CUDA libraries is unsafe), every entry point of the table bound. Errors say which
// file and why ("cannot load /x/libnccl.so.2: ...: cannot open shared object file").
Result<Driver> open_driver(const std::string& path);
Result<Runtime> open_runtime(const std::string& path);
Result<Blas> open_blas(const std::string& path);
Result<Cudnn> open_cudnn(const std::string& path);
Result<Nccl> open_nccl(const std::string& path);

// The process-wide copies the benchmarks use, loaded once: the override (PLUMB_CUDART_LIB,
// PLUMB_CUBLAS_LIB, PLUMB_NCCL_LIB) or else the sonames of recent majors; every entry point the
// benchmarks call must be present. Errors say which files were tried and why they failed.
Result<const Runtime*> runtime();
Result<const Blas*> blas();
Result<const Nccl*> nccl();

// Devices usable by the runtime, or the precise reason there are none: runtime library missing,
// runtime present but no driver (libcuda.so.1 not loadable / cudaErrorInsufficientDriver), or no
// device (cudaErrorNoDevice).
Result<int> usable_devices();

// "cudaErrorNoDevice (100)": runtime-style names, for benchmark messages.
std::string cuda_error_name(Error e);
// "CUDA_ERROR_STUB_LIBRARY": driver-style names, for the device query.
std::string cuda_result_name(int rc);

}  // namespace plumb::cuda
