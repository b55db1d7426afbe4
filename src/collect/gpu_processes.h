// Who holds GPU memory: NVML's running compute processes matched against /proc under the root.
#pragma once

#include <optional>
#include <set>
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

// Which pids NVML would give plumb's own processes: this one and those it started (the framework
// probe and its worker, a benchmark's Python). NVML reports pids as the outermost PID namespace
// sees them; inside a container (/proc/self/status "NSpid:" with more than one field) those are not
// the pids /proc shows, so there the set is built once from each process's NSpid. Elsewhere a pid
// is followed up its PPid chain under `root`.
class OwnPids {
 public:
  explicit OwnPids(const HostRoot& root);
  [[nodiscard]] bool contains(unsigned nvml_pid) const;
  [[nodiscard]] bool namespaced() const { return namespaced_; }

 private:
  HostRoot root_;
  bool namespaced_ = false;
  std::set<unsigned> outer_;  // namespaced: the outermost pids of plumb and its descendants
};

// The compute processes NVML lists on `device` other than plumb's own, each as "pid 4242 (python3,
// 70 GiB)" (the name from /proc under `root` when that pid is visible there, the memory when NVML
// reports it). An error when NVML cannot list them.
Result<std::vector<std::string>> other_gpu_users(const HostRoot& root, const OwnPids& own, const NvmlLibrary& lib,
                                                 nvml::Device device);
// "1 process: pid 4242 (python3, 70 GiB)", "3 processes: ...; ...; ..." (at most four named).
std::string gpu_users_text(std::vector<std::string> users);

}  // namespace plumb
