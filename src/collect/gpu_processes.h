// Who holds GPU memory: NVML's running compute processes matched against /proc under the root.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/pid_status.h"
#include "core/facts/sysconfig.h"
#include "core/host_root.h"
#include "core/result.h"
#include "vendor/nvml_loader.h"

namespace plumb {

// The real uid: the first number of status "Uid:\treal\teffective\tsaved\tfs".
std::optional<int> status_real_uid(const PidStatus& s);
// NSpid lists the pid in every namespace from the outermost in; more than one entry means the
// process lives in a child PID namespace (a container), where the host's pids are not visible.
bool status_in_child_pid_namespace(const PidStatus& s);
// Fills alive/state/uid/name of one NVML process from the text of its /proc/<pid>/status.
void apply_pid_status(GpuProcessOwner& p, std::string_view status_text);

// Whether `pid` is this process or one it started (the framework probe and its worker), read
// through /proc/<pid>/status's PPid chain under `root`.
bool is_plumbs_own(const HostRoot& root, unsigned pid);
// The compute processes NVML lists on `device` other than plumb's own, each as "pid 4242 (python3,
// 70 GiB)" (name from /proc under `root` when visible, memory when NVML reports it). An error when
// NVML cannot list them.
Result<std::vector<std::string>> other_gpu_users(const HostRoot& root, const NvmlLibrary& lib, nvml::Device device);
// "1 process: pid 4242 (python3, 70 GiB)", "3 processes: ...; ...; ..." (at most four named).
std::string gpu_users_text(std::vector<std::string> users);

}  // namespace plumb
