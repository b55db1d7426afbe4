// Shared helpers of the framework-layer rules: environment lookup across the target process and
// the probe, CUDA version decoding, and the hook for the libraries a process loads.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/facts.h"

namespace plumb {

struct EnvValue {
  std::string value;
  std::string source;  // "/proc/1234/environ" or "python probe (/usr/bin/python3)"
};

// A variable of the job's environment: the target process's environ first (host facts), then what
// the probe's interpreter saw. nullopt when neither source has it.
std::optional<EnvValue> job_env(const Facts& f, const std::string& key);
// Whether any environment was collected at all (so "unset" means unset, not unknown).
bool job_env_known(const Facts& f);
// Why no environment is known, for skip reasons.
std::string job_env_why(const Facts& f);

struct CudaVersion {
  int major = 0, minor = 0;
};
// "12.4" / "12.4.131" -> {12, 4}; nullopt on anything else.
std::optional<CudaVersion> parse_cuda_version(std::string_view s);
// NVML/cudaDriverGetVersion encoding 1000*major + 10*minor (12020 -> 12.2).
CudaVersion decode_cuda_int(int v);
std::string to_string(const CudaVersion& v);

// The copy of a library (cudnn, nccl) the target process loads, from the GPU layer's library facts.
struct LoadedLibrary {
  std::string version;
  std::string source;
};
// nullopt with `why` set while the GPU layer does not report loaded libraries.
std::optional<LoadedLibrary> loaded_library(const Facts& f, std::string_view name, std::string& why);

}  // namespace plumb
