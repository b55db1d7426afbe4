// The table of known NCCL and torch.distributed environment variables with their allowed values
// (NCCL's env.rst, PyTorch's ProcessGroupNCCL.hpp), as data, and the value checker the environment audit uses.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plumb {

struct NcclVarSpec {
  std::string_view name;
  // "any" | "bool" (0/1) | "int:MIN:MAX" | "enum:A|B" (exact) | "enumi:A|B" (any case) |
  // "level" (LOC NVL PIX PXB PHB SYS, case-sensitive, or a legacy integer) | "list:A|B" (comma
  // list of tokens, optional ^ prefix, any case) | "set:64|128" (exact numbers)
  std::string_view spec;
  bool debug_only = false;  // NCCL's "Debugging" group: not meant for production jobs
};

// Names NCCL or PyTorch never read, or read only under another name.
struct MisnamedVar {
  std::string_view name;
  std::string_view kind;         // "myth" (no such variable) | "torch_old" (PyTorch's pre-2.2 name) | "renamed"
  std::string_view replacement;  // what to use instead
};

const std::vector<NcclVarSpec>& nccl_var_table();
const NcclVarSpec* find_nccl_var(std::string_view name);
const MisnamedVar* find_misnamed_var(std::string_view name);
// Prefixes of network plugins' own NCCL_* variables (GCP TCPX/TCPXO/FasTrak, AWS OFI).
bool is_plugin_var(std::string_view name);
// Variables this audit covers: NCCL_*, TORCH_NCCL_*, TORCH_DISTRIBUTED_*, TORCH_FR_*; not
// NCCL_VERSION, the label NVIDIA's CUDA container images set.
bool is_audited_var(std::string_view name);

struct ValueVerdict {
  std::string problem;  // "" ok | "not_allowed" | "case" (valid in another case; NCCL ignores it) |
                        // "not_int" | "range" | "legacy_int" (accepted, but the docs discourage it)
  std::string allowed;  // human list of allowed values
};
ValueVerdict check_nccl_value(const NcclVarSpec& spec, std::string_view value);

}  // namespace plumb
