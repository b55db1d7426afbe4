// GEMM type selection, TFLOPS arithmetic, the all-reduce size sweep and NCCL version decoding.
#include "bench/gpu_plan.h"

#include "vendor/cuda_api.h"
#include "core/text.h"

namespace plumb {

Result<std::vector<GemmType>> gemm_types(const std::string& dtype) {
  const std::vector<GemmType> all = {{"fp32", cuda::kDataR32F, cuda::kCompute32F},
                                     {"tf32", cuda::kDataR32F, cuda::kCompute32FFastTF32},
                                     {"bf16", cuda::kDataR16BF, cuda::kCompute32F}};
  if (dtype.empty() || dtype == "all") return all;
  std::vector<GemmType> out;
  for (auto part : split(dtype, ',')) {
    bool found = false;
    for (const auto& t : all) {
      if (t.name == part) {
        out.push_back(t);
        found = true;
      }
    }
    if (!found) return make_error(ErrorKind::invalid, "gemm: unknown --dtype '" + std::string(part) + "' (use fp32, tf32, bf16)");
  }
  return out;
}

double gemm_tflops(int m, int n, int k, double seconds) {
  if (seconds <= 0) return 0;
  return 2.0 * m * static_cast<double>(n) * k / seconds / 1e12;
}

std::vector<std::uint64_t> allreduce_sizes(std::uint64_t max_bytes) {
  std::vector<std::uint64_t> v;
  max_bytes = std::max<std::uint64_t>(max_bytes / 4 * 4, 4);
  for (std::uint64_t s = 1ull << 20; s < max_bytes; s *= 4) v.push_back(s);
  v.push_back(max_bytes);
  return v;
}

std::string nccl_version_string(int code) {
  if (code <= 0) return "unknown";
  int major = 0, minor = 0, patch = 0;
  if (code < 2900) {
    major = code / 1000;
    minor = (code % 1000) / 100;
    patch = code % 100;
  } else {
    major = code / 10000;
    minor = (code % 10000) / 100;
    patch = code % 100;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace plumb
