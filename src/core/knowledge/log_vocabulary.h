// The signatures `plumb diagnose` derives from the error vocabularies of the stack itself (CUDA
// runtime and driver, NVML, NCCL, Gloo and torch.distributed, PyTorch, cuDNN/cuBLAS, OpenMP,
// errno, the kernel log, Kubernetes, Slurm): one row per vocabulary entry, grouped into families
// that share a cause, their words and their checks (see log_vocabulary.cpp).
#pragma once

#include <string>
#include <vector>

#include "core/knowledge/log_signatures.h"

namespace plumb {

// One entry of a CUDA error vocabulary: cudaError_t / CUresult name, number and message.
struct CudaErrorEntry {
  const char* runtime_name;  // "cudaErrorSystemNotReady"
  const char* driver_name;   // "CUDA_ERROR_SYSTEM_NOT_READY"
  int number;                // 802
  const char* message;       // "system not yet initialized" (cudaGetErrorString)
  const char* family;        // the signature it belongs to
};
const std::vector<CudaErrorEntry>& cuda_error_vocabulary();

// Appends the vocabulary families to the signature table.
void append_vocabulary_signatures(std::vector<LogSignature>& t);

// Turns literal text into a pattern that matches it (punctuation escaped).
std::string literal_pattern(const std::string& text);

}  // namespace plumb
