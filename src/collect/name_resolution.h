// The host's name and how /etc/hosts resolves it: Gloo and torch.distributed's bootstrap look the
// name up, and Debian/Ubuntu's installer writes "127.0.1.1 <hostname>".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/facts/sysconfig.h"

namespace plumb {

// /etc/hosts (hosts(5)): address then names, '#' to the end of a line is a comment. Lines whose
// first field is not an IPv4 or IPv6 address are dropped.
std::vector<HostsEntry> parse_etc_hosts(std::string_view text);
// The sources after "hosts:" in /etc/nsswitch.conf ("files dns"); empty when there is no such line.
std::string parse_nsswitch_hosts(std::string_view text);
// 127.0.0.0/8, ::1, and IPv4-mapped ::ffff:127.x.y.z.
bool is_loopback_address(std::string_view address);
// The entries that name `host` (case-insensitive, as the resolver compares), in file order.
std::vector<HostsEntry> hosts_entries_for(const std::vector<HostsEntry>& hosts, std::string_view host);

}  // namespace plumb
