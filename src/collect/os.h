// OS release and kernel version.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/facts/host.h"
#include "core/host_root.h"

namespace plumb {

// Parses os-release(5): KEY=value lines, values optionally quoted with shell-style escapes.
std::map<std::string, std::string> parse_os_release(std::string_view text);
OsFacts read_os(const HostRoot& root);

}  // namespace plumb
