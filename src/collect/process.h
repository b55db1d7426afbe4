// The target process (/proc/self or --pid N): environment, resource limits, status.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/context.h"
#include "core/facts/host.h"

namespace plumb {

// NUL-separated KEY=value records (/proc/<pid>/environ); records without '=' are dropped,
// the first definition of a repeated key wins (as getenv(3) sees it).
std::map<std::string, std::string> parse_environ(std::string_view text);
// /proc/<pid>/limits rows keyed by limit name ("Max locked memory"); "unlimited" -> nullopt.
std::map<std::string, ResourceLimit> parse_limits(std::string_view text);

ProcessFacts read_process(const Context& ctx);

// Whether a process whose /proc/<pid>/comm is `comm` runs under the root (nvidia-persistenced,
// nv-fabricmanager); the comm file that matched is the source.
Fact<bool> process_running(const HostRoot& root, std::string_view comm);

}  // namespace plumb
