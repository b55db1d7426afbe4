// The machine stage: the options that name the machine a command reads (--root, --pid, --kmsg...),
// validated into a Context, the config and the selection of checks.
#pragma once

#include <string>
#include <vector>

#include "core/context.h"
#include "core/iso_time.h"  // now_iso8601, for the subcommands that stamp their reports
#include "core/registry.h"
#include "core/thresholds.h"

namespace plumb {

struct MachineOptions {
  std::string root = "/";
  int pid = 0;
  std::string kmsg;
  std::vector<std::string> data;
  std::string nvml_lib;
  std::string python;
  std::string model_repo;
  std::string cuda_context = "idle";
  std::string config;
  int timeout_ms = 5000;
};
// The machine options a command reads. --root, --nvml-lib, --config and --timeout always; the
// others only where a collector the command runs reads them (a flag a command ignores is not offered).
enum MachineFlag : unsigned {
  kPidFlag = 1U << 0,        // --pid: the job's environment, cgroup, limits
  kKmsgFlag = 1U << 1,       // --kmsg: the kernel log
  kDataFlag = 1U << 2,       // --data: dataset file systems
  kPythonFlag = 1U << 3,     // --python: the framework probe
  kModelRepoFlag = 1U << 4,  // --model-repo: Triton's model repository
  kCudaContextFlag = 1U << 5,  // --cuda-context: the CUDA device query
  kAllMachineFlags = 0x3FU,
};
// Validates the options (root exists, pid exists, config parses) and builds the Context.
// Throws UsageError with a one-line reason.
Context make_context(const MachineOptions& o);

Config load_config_or_throw(const std::string& path);
// Splits "a,b" items of repeated --only/--skip options and checks them against the registries.
Selection make_selection(const std::vector<std::string>& only, const std::vector<std::string>& skip,
                         const std::vector<std::string>& config_skip);
std::string host_name(const HostRoot& root);

}  // namespace plumb
