// Environment variables that steer the GPU, communication and thread stack (see env_vars.h).
#include "core/knowledge/env_vars.h"

#include <algorithm>
#include <iterator>
#include <set>

#include "core/text.h"

namespace plumb {

bool relevant_env_var(const std::string& name) {
  static const char* const kPrefixes[] = {"NCCL_",   "CUDA_",  "CUBLAS_", "CUDNN_", "PYTORCH_", "TORCH_", "OMP_",
                                          "MKL_",    "KMP_",   "GOMP_",   "TF_",    "XLA_",     "NVIDIA_", "HIP_",
                                          "ROCR_",   "UCX_",   "FI_",     "MASTER_", "NV_",     "OPENBLAS_", "HF_"};
  static const std::set<std::string> kExact{"LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONHASHSEED", "WORLD_SIZE",
                                            "LOCAL_WORLD_SIZE", "VIRTUAL_ENV", "CONDA_PREFIX", "MALLOC_CONF",
                                            "TOKENIZERS_PARALLELISM"};
  if (kExact.count(name)) return true;
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes), [&](const char* p) { return starts_with(name, p); });
}

}  // namespace plumb
