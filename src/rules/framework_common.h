// Shared helpers of the framework-layer rules: environment lookup across the target process and
// the probe, CUDA version decoding, and the hook for the libraries a process loads.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// A copy of a library (cudnn, nccl) the target process (--pid N) maps, from the GPU layer's CUDA
// stack facts (/proc/N/maps matched against the copies found on disk).
struct LoadedLibrary {
  std::string path;        // the mapped file, symlinks resolved
  std::string version;     // "9.1.0.70", "2.21.5", "9" (file name only); empty when unknown
  std::string version_why; // why the version is unknown
  std::string source;      // "/proc/4242/maps; version: pip metadata next to ..."
  bool deleted = false;    // the file is gone from disk (replaced while the job runs)
};
// The copies of `lib` ("cudnn", "nccl") the --pid process maps. Empty with `why` set when the
// maps were not read (no --pid, unreadable, the CUDA search not run) or the process maps none.
std::vector<LoadedLibrary> loaded_libraries(const Facts& f, std::string_view lib, std::string& why);

// The cuDNN/NCCL copies the probe's interpreter mapped after importing torch (its own
// /proc/self/maps and version getters; with --pid it runs in the job's environment). Empty when
// torch did not report them (CPU build, older probe answer).
std::vector<LoadedLibrary> probe_mapped_libraries(const Facts& f, std::string_view lib);

// Compares two dotted versions on the components both have, at most `depth` of them ("9" vs
// "9.1.0" compares the major only). nullopt when either is not a version.
std::optional<bool> same_version(std::string_view a, std::string_view b, int depth);

}  // namespace plumb
