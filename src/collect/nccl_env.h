// The NCCL / torch.distributed environment of the target process, /etc/nccl.conf, and the
// topology file NCCL_TOPO_FILE names.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "collect/process.h"
#include "core/facts/comm.h"
#include "core/host_root.h"

namespace plumb {

// Only the variables the distributed checks read (NCCL_*, TORCH_NCCL_*, CUDA_VISIBLE_DEVICES, ...).
std::map<std::string, std::string> distributed_vars(const std::map<std::string, std::string>& env);
// nccl.conf: VAR=value lines, '#' comments, optional quotes.
std::map<std::string, std::string> parse_nccl_conf(std::string_view text);

// NCCL's default topology file, read when NCCL_TOPO_FILE is unset.
inline constexpr const char* kNcclDefaultTopoFile = "/var/run/nvidia-topologyd/virtualTopology.xml";

}  // namespace plumb
