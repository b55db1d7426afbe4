// Driver <-> CUDA runtime compatibility as data (CUDA Toolkit Release Notes table "CUDA Toolkit and
// Corresponding Driver Versions"; docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace plumb {

struct ToolkitDriverRow {
  int cuda;                // 1000*major + 10*minor of the toolkit release (its GA row)
  const char* min_driver;  // minimum Linux x86_64 driver of that release's GA
};
// The GA rows of NVIDIA's "CUDA Toolkit and Corresponding Driver Versions" table, newest first.
const std::vector<ToolkitDriverRow>& toolkit_driver_table();
// The minimum driver of the family for minor-version compatibility: 13.x >= 580, 12.x >= 525,
// 11.x >= 450 (11.0 itself: 450.80.02). Empty for unknown majors.
std::string family_min_driver(int cuda_major);
// The GA minimum driver for a CUDA major.minor; empty when the table has no such release.
std::string min_driver_for(int cuda);

enum class Compat {
  ok,                // runtime <= what the driver supports
  minor_compat,      // same major, newer minor, driver >= the family minimum: runs, PTX JIT/new APIs may fail
  driver_too_old,    // same major, driver below the family minimum: cudaErrorInsufficientDriver (35)
  newer_major,       // runtime major above the driver's: needs a driver upgrade (or cuda-compat on datacenter GPUs)
  unknown,
};

struct CompatVerdict {
  Compat verdict = Compat::unknown;
  std::string min_driver;  // the driver that runs this runtime without compatibility modes
};

// driver_cuda: what the driver supports (12020); driver_version: "535.183.01" (may be empty);
// runtime: cudaRuntimeGetVersion-style (13000).
CompatVerdict judge_cuda_compat(int driver_cuda, const std::string& driver_version, int runtime);

}  // namespace plumb
