// The GID table of every RDMA port (/sys/class/infiniband/<dev>/ports/<n>/gids/<i> with
// gid_attrs/types/<i> and gid_attrs/ndevs/<i>): what NCCL_IB_GID_INDEX selects on RoCE.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/facts/sysconfig.h"

namespace plumb {

// A sysfs GID: eight groups of four hex digits ("fe80:0000:0000:0000:0202:c9ff:fe00:0001"),
// returned lower-case; nullopt when it is not one.
std::optional<std::string> parse_gid(std::string_view text);
bool is_zero_gid(std::string_view gid);
// The IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d), "" otherwise.
std::string gid_ipv4(std::string_view gid);
// A gid_attrs/types/<i> value: "RoCE v2" or "IB/RoCE v1" (the kernel's gid_type_str); "" otherwise.
std::string parse_gid_type(std::string_view text);

}  // namespace plumb
