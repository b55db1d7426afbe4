// Pure parts of the GPU benchmarks (argument handling and arithmetic), unit-tested without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"

namespace plumb {

struct GemmType {
  std::string name;   // fp32 | tf32 | bf16
  int data_type = 0;  // cudaDataType of A, B, C
  int compute_type = 0;
};
// "" -> all three; "fp32,bf16" -> those; anything else -> an error naming the valid ones.
Result<std::vector<GemmType>> gemm_types(const std::string& dtype);
double gemm_tflops(int m, int n, int k, double seconds);
// nccl-tests style sweep: 1 MiB, 4 MiB, ... up to max_bytes (factor 4), max_bytes included.
std::vector<std::uint64_t> allreduce_sizes(std::uint64_t max_bytes);
// ncclGetVersion code -> "2.18.3" (codes below 2900 are the pre-2.9 X*1000+Y*100+Z form).
std::string nccl_version_string(int code);

}  // namespace plumb
