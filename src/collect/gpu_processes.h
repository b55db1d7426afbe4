// Who holds GPU memory: NVML's running compute processes matched against /proc under the root.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "collect/pid_status.h"
#include "core/facts/sysconfig.h"

namespace plumb {

// The real uid: the first number of status "Uid:\treal\teffective\tsaved\tfs".
std::optional<int> status_real_uid(const PidStatus& s);
// NSpid lists the pid in every namespace from the outermost in; more than one entry means the
// process lives in a child PID namespace (a container), where the host's pids are not visible.
bool status_in_child_pid_namespace(const PidStatus& s);
// Fills alive/state/uid/name of one NVML process from the text of its /proc/<pid>/status.
void apply_pid_status(GpuProcessOwner& p, std::string_view status_text);

}  // namespace plumb
