// Fake CUDA libraries for tests: the version getters of libcudart, cuDNN and NCCL answer the versions
// of the toolkit headers under tests/fixtures/gpu/cuda-12.4-runfile (compiled in from those headers),
// and the libcuda stub's cuInit answers CUDA_ERROR_STUB_LIBRARY (34) as the toolkit's link-time stub
// does. One source, one variant per library (FAKE_CUDART, FAKE_CUDNN, FAKE_NCCL, FAKE_CUDA_STUB).
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
#else
#error "define one of FAKE_CUDART, FAKE_CUDNN, FAKE_NCCL, FAKE_CUDA_STUB"
#endif
