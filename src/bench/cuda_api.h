// CUDA runtime, cuBLAS and NCCL entry points the GPU benchmarks use, declared here from NVIDIA's
// documented signatures and loaded with dlopen (no CUDA headers or nvcc needed to build plumb).
// Self-contained on purpose: the GPU area's loaders (src/gpu/) can absorb this table later.
#pragma once

#include <cstddef>
#include <string>

#include "core/result.h"

namespace plumb::cuda {

using Error = int;        // cudaError_t: 0 success, 35 insufficient driver, 100 no device
using Stream = void*;     // cudaStream_t
using Event = void*;      // cudaEvent_t
constexpr int kMemcpyHostToDevice = 1;
constexpr int kMemcpyDeviceToHost = 2;
constexpr int kMemcpyDeviceToDevice = 3;

struct Runtime {
  std::string library;    // the file that was loaded ("libcudart.so.12")
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

// cuBLAS (cublas_api.h): handles and GemmEx.
using BlasHandle = void*;
constexpr int kBlasOpN = 0;           // CUBLAS_OP_N
constexpr int kDataR32F = 0;          // CUDA_R_32F
constexpr int kDataR16BF = 14;        // CUDA_R_16BF
constexpr int kCompute32F = 68;       // CUBLAS_COMPUTE_32F
constexpr int kCompute32FFastTF32 = 77;  // CUBLAS_COMPUTE_32F_FAST_TF32
constexpr int kGemmDefault = -1;      // CUBLAS_GEMM_DEFAULT

struct Blas {
  std::string library;
  int (*Create)(BlasHandle*) = nullptr;             // cublasCreate_v2
  int (*Destroy)(BlasHandle) = nullptr;             // cublasDestroy_v2
  int (*SetStream)(BlasHandle, Stream) = nullptr;   // cublasSetStream_v2
  int (*GemmEx)(BlasHandle, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                const void*, void*, int, int, int, int) = nullptr;
  int (*GetVersion)(BlasHandle, int*) = nullptr;    // cublasGetVersion_v2
};

// NCCL (nccl.h).
using Comm = void*;
constexpr int kNcclFloat32 = 7;  // ncclFloat32
constexpr int kNcclSum = 0;      // ncclSum

struct Nccl {
  std::string library;
  int (*GetVersion)(int*) = nullptr;
  int (*CommInitAll)(Comm*, int, const int*) = nullptr;
  int (*CommDestroy)(Comm) = nullptr;
  int (*AllReduce)(const void*, void*, std::size_t, int, int, Comm, Stream) = nullptr;
  int (*GroupStart)() = nullptr;
  int (*GroupEnd)() = nullptr;
  const char* (*GetErrorString)(int) = nullptr;
};

// Each loader tries the override (PLUMB_CUDART_LIB, PLUMB_CUBLAS_LIB, PLUMB_NCCL_LIB) and then the
// sonames of recent majors; errors say which files were tried and why they failed.
Result<const Runtime*> runtime();
Result<const Blas*> blas();
Result<const Nccl*> nccl();

// Devices usable by the runtime, or the precise reason there are none: runtime library missing,
// runtime present but no driver (libcuda.so.1 not loadable / cudaErrorInsufficientDriver), or no
// device (cudaErrorNoDevice).
Result<int> usable_devices();

// "cudaErrorNoDevice (100)" style names for the codes whose meaning the reason depends on.
std::string cuda_error_name(Error e);

}  // namespace plumb::cuda
