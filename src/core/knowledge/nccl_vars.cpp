// Known NCCL (NVIDIA/nccl v2.30.7 docs/userguide/source/env.rst, src/misc/param.cc) and PyTorch
// (torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp) variables; names added by plugins are
// tolerated, not judged.
#include "core/knowledge/nccl_vars.h"

#include <algorithm>
#include <cctype>

#include "core/host_root.h"
#include "core/text.h"

namespace plumb {

namespace {

const std::vector<NcclVarSpec> kVars = {
    // Logging
    {"NCCL_DEBUG", "enumi:VERSION|WARN|INFO|ABORT|TRACE"},
    {"NCCL_DEBUG_SUBSYS", "any"},
    {"NCCL_DEBUG_FILE", "any"},
    {"NCCL_DEBUG_TIMESTAMP_FORMAT", "any"},
    {"NCCL_DEBUG_TIMESTAMP_LEVELS", "any"},
    {"NCCL_WARN_ENABLE_DEBUG_INFO", "bool"},
    {"NCCL_SET_THREAD_NAME", "bool"},
    {"NCCL_CONF_FILE", "any"},
    // Sockets and bootstrap
    {"NCCL_SOCKET_IFNAME", "any"},
    {"NCCL_SOCKET_FAMILY", "enum:AF_INET|AF_INET6"},
    {"NCCL_SOCKET_NTHREADS", "int:1:16"},
    {"NCCL_NSOCKS_PERTHREAD", "int:1:64"},
    {"NCCL_SOCKET_RETRY_CNT", "int:0:100000"},
    {"NCCL_SOCKET_RETRY_SLEEP_MSEC", "int:0:100000000"},
    {"NCCL_SOCKET_POLL_TIMEOUT_MSEC", "int:0:100000000"},
    {"NCCL_COMM_ID", "any"},
    {"NCCL_HOSTID", "any"},
    {"NCCL_OOB_NET_ENABLE", "bool"},
    {"NCCL_OOB_NET_IFNAME", "any"},
    {"NCCL_UID_STAGGER_THRESHOLD", "int:0:1000000000"},
    {"NCCL_UID_STAGGER_RATE", "int:0:1000000000"},
    {"NCCL_NET", "any"},
    {"NCCL_NET_PLUGIN", "any"},
    {"NCCL_TUNER_PLUGIN", "any"},
    {"NCCL_PROFILER_PLUGIN", "any"},
    {"NCCL_ENV_PLUGIN", "any"},
    {"NCCL_IGNORE_CPU_AFFINITY", "bool"},
    {"NCCL_CROSS_NIC", "int:0:2"},
    // InfiniBand / RoCE
    {"NCCL_IB_DISABLE", "bool", true},
    {"NCCL_IB_HCA", "any"},
    {"NCCL_IB_TIMEOUT", "int:0:31"},
    {"NCCL_IB_RETRY_CNT", "int:0:7"},
    {"NCCL_IB_GID_INDEX", "int:-1:255"},
    {"NCCL_IB_ADDR_FAMILY", "enum:AF_INET|AF_INET6"},
    {"NCCL_IB_ADDR_RANGE", "any"},
    {"NCCL_IB_ROCE_VERSION_NUM", "int:1:2"},
    {"NCCL_IB_SL", "int:0:15"},
    {"NCCL_IB_TC", "int:0:255"},
    {"NCCL_IB_FIFO_TC", "int:0:255"},
    {"NCCL_IB_RETURN_ASYNC_EVENTS", "bool"},
    {"NCCL_IB_AR_THRESHOLD", "int:0:1000000000000"},
    {"NCCL_IB_QPS_PER_CONNECTION", "int:1:128"},
    {"NCCL_IB_SPLIT_DATA_ON_QPS", "bool"},
    {"NCCL_IB_CUDA_SUPPORT", "bool"},
    {"NCCL_IB_PCI_RELAXED_ORDERING", "int:0:2"},
    {"NCCL_IB_ADAPTIVE_ROUTING", "bool"},
    {"NCCL_IB_ECE_ENABLE", "bool"},
    {"NCCL_IB_MERGE_VFS", "bool"},
    {"NCCL_IB_MERGE_NICS", "bool"},
    {"NCCL_IB_MQP_RETRY_ALL", "bool"},
    {"NCCL_IB_MQP_RETRY_CNT", "int:0:1000"},
    {"NCCL_IB_MQP_RETRY_SLEEP_MSEC", "int:0:100000000"},
    {"NCCL_IB_USE_INLINE", "bool"},
    {"NCCL_IB_OOO_RQ", "bool"},
    // GPUDirect RDMA and network buffers
    {"NCCL_NET_GDR_LEVEL", "level", true},
    {"NCCL_NET_GDR_READ", "bool"},
    {"NCCL_NET_GDR_C2C", "bool"},
    {"NCCL_NET_SHARED_BUFFERS", "bool"},
    {"NCCL_NET_SHARED_COMMS", "bool"},
    {"NCCL_NET_FORCE_FLUSH", "bool"},
    {"NCCL_NET_DISABLE_INTRA", "bool"},
    {"NCCL_NET_MERGE_LEVEL", "level"},
    {"NCCL_DMABUF_ENABLE", "bool"},
    {"NCCL_GDRCOPY_ENABLE", "bool"},
    {"NCCL_GDRCOPY_FLUSH_ENABLE", "bool"},
    {"NCCL_GDRCOPY_SYNC_ENABLE", "bool"},
    {"NCCL_GDRCOPY_FIFO_ENABLE", "bool"},
    {"NCCL_COLLNET_ENABLE", "bool"},
    {"NCCL_COLLNET_NODE_THRESHOLD", "int:0:1000000"},
    // Topology and transports
    {"NCCL_TOPO_FILE", "any"},
    {"NCCL_TOPO_DUMP_FILE", "any"},
    {"NCCL_TOPO_DUMP_FILE_RANK", "int:0:100000000"},
    {"NCCL_TOPO_SPLIT_MLOPART", "bool"},
    {"NCCL_GRAPH_FILE", "any"},
    {"NCCL_GRAPH_DUMP_FILE", "any"},
    {"NCCL_GRAPH_DUMP_FILE_RANK", "int:0:100000000"},
    {"NCCL_P2P_DISABLE", "bool", true},
    {"NCCL_P2P_LEVEL", "level", true},
    {"NCCL_P2P_DIRECT_DISABLE", "bool"},
    {"NCCL_P2P_READ_ENABLE", "bool"},
    {"NCCL_P2P_USE_CUDA_MEMCPY", "bool"},
    {"NCCL_P2P_PXN_LEVEL", "int:0:2"},
    {"NCCL_P2P_NET_CHUNKSIZE", "int:1:1000000000"},
    {"NCCL_P2P_NVL_CHUNKSIZE", "int:1:1000000000"},
    {"NCCL_P2P_PCI_CHUNKSIZE", "int:1:1000000000"},
    {"NCCL_P2P_LL_THRESHOLD", "int:0:1000000000"},
    {"NCCL_PXN_DISABLE", "bool"},
    {"NCCL_NVB_DISABLE", "bool"},
    {"NCCL_SHM_DISABLE", "bool", true},
    {"NCCL_SHM_USE_CUDA_MEMCPY", "bool"},
    {"NCCL_SHM_MEMCPY_MODE", "int:1:3"},
    {"NCCL_SHM_LOCALITY", "int:1:2"},
    {"NCCL_CUMEM_ENABLE", "bool", true},
    {"NCCL_CUMEM_HOST_ENABLE", "bool"},
    {"NCCL_NVLS_ENABLE", "int:0:2", true},
    {"NCCL_NVLS_CHUNKSIZE", "int:1:1000000000"},
    {"NCCL_MNNVL_ENABLE", "int:0:2"},
    {"NCCL_MNNVL_UUID", "any"},
    {"NCCL_MNNVL_CLIQUE_ID", "any"},
    // Tuning
    {"NCCL_ALGO", "list:RING|TREE|COLLNET|COLLNETCHAIN|COLLNETDIRECT|NVLS|NVLSTREE|PAT", true},
    {"NCCL_PROTO", "list:LL|LL128|SIMPLE", true},
    {"NCCL_BUFFSIZE", "int:1:17179869184", true},
    {"NCCL_NTHREADS", "set:64|128|256|512", true},
    {"NCCL_MIN_NCHANNELS", "int:1:64", true},
    {"NCCL_MAX_NCHANNELS", "int:1:64", true},
    {"NCCL_MIN_CTAS", "int:1:64"},
    {"NCCL_MAX_CTAS", "int:1:64"},
    {"NCCL_MIN_P2P_NCHANNELS", "int:1:64"},
    {"NCCL_MAX_P2P_NCHANNELS", "int:1:64"},
    {"NCCL_NCHANNELS_PER_NET_PEER", "int:1:64"},
    {"NCCL_CTA_POLICY", "any"},
    {"NCCL_LAUNCH_MODE", "enumi:PARALLEL|GROUP", true},
    {"NCCL_SINGLE_RING_THRESHOLD", "int:0:1000000000"},
    {"NCCL_LL_THRESHOLD", "int:0:1000000000"},
    {"NCCL_TREE_THRESHOLD", "int:0:1000000000000"},
    {"NCCL_CHECKS_DISABLE", "bool"},
    {"NCCL_CHECK_POINTERS", "bool"},
    {"NCCL_COMM_BLOCKING", "bool"},
    {"NCCL_RUNTIME_CONNECT", "bool"},
    {"NCCL_GRAPH_REGISTER", "bool"},
    {"NCCL_LOCAL_REGISTER", "bool"},
    {"NCCL_LEGACY_CUDA_REGISTER", "bool"},
    {"NCCL_GRAPH_MIXING_SUPPORT", "bool"},
    {"NCCL_WORK_FIFO_BYTES", "int:1:1000000000"},
    {"NCCL_WORK_FIFO_DEPTH", "int:1:1000000000"},
    {"NCCL_MEM_SYNC_DOMAIN", "int:0:1"},
    {"NCCL_RAS_ENABLE", "bool"},
    {"NCCL_RAS_ADDR", "any"},
    {"NCCL_RAS_TIMEOUT_FACTOR", "int:1:1000"},
    {"NCCL_PROXY_APPEND_BATCH_SIZE", "int:1:1000000"},
    {"NCCL_PROXY_DUMP_SIGNAL", "int:-1:64"},
    {"NCCL_CREATE_THREAD_CONTEXT", "bool"},
    // PyTorch ProcessGroupNCCL (names with TORCH_ since torch 2.2)
    {"TORCH_NCCL_ASYNC_ERROR_HANDLING", "int:0:3"},
    {"TORCH_NCCL_BLOCKING_WAIT", "bool"},
    {"TORCH_NCCL_TRACE_BUFFER_SIZE", "int:0:100000000"},
    {"TORCH_FR_BUFFER_SIZE", "int:0:100000000"},
    {"TORCH_NCCL_DUMP_ON_TIMEOUT", "bool"},
    {"TORCH_NCCL_DEBUG_INFO_TEMP_FILE", "any"},
    {"TORCH_FR_DUMP_TEMP_FILE", "any"},
    {"TORCH_NCCL_DEBUG_INFO_PIPE_FILE", "any"},
    {"TORCH_NCCL_ENABLE_MONITORING", "bool"},
    {"TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", "int:1:100000000"},
    {"TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILLISEC", "int:0:100000000"},
    {"TORCH_NCCL_COORD_CHECK_MILLISEC", "int:0:100000000"},
    {"TORCH_NCCL_DESYNC_DEBUG", "bool"},
    {"TORCH_NCCL_ENABLE_TIMING", "bool"},
    {"TORCH_NCCL_AVOID_RECORD_STREAMS", "bool"},
    {"TORCH_NCCL_USE_COMM_NONBLOCKING", "bool"},
    {"TORCH_NCCL_HIGH_PRIORITY", "bool"},
    {"TORCH_NCCL_CUDA_EVENT_CACHE", "bool"},
    {"TORCH_NCCL_NAN_CHECK", "bool"},
    {"TORCH_NCCL_LOG_CPP_STACK_ON_UNCLEAN_SHUTDOWN", "bool"},
    {"TORCH_NCCL_RETHROW_CUDA_ERRORS", "bool"},
    {"TORCH_NCCL_PROPAGATE_ERROR", "bool"},
    {"TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK", "bool"},
    {"TORCH_NCCL_EXTRA_DUMP_ON_EXEC", "bool"},
    {"TORCH_DISTRIBUTED_DEBUG", "enumi:OFF|INFO|DETAIL"},
};

const std::vector<MisnamedVar> kMisnamed = {
    {"NCCL_SOCKET_TIMEOUT", "myth", "init_process_group(timeout=datetime.timedelta(...))"},
    {"NCCL_TIMEOUT", "myth", "init_process_group(timeout=datetime.timedelta(...))"},
    {"NCCL_TIMEOUT_MINS", "myth", "init_process_group(timeout=datetime.timedelta(...))"},
    {"NCCL_ASYNC_ERROR_HANDLING", "torch_old", "TORCH_NCCL_ASYNC_ERROR_HANDLING"},
    {"NCCL_BLOCKING_WAIT", "torch_old", "TORCH_NCCL_BLOCKING_WAIT"},
    {"NCCL_DESYNC_DEBUG", "torch_old", "TORCH_NCCL_DESYNC_DEBUG"},
    {"NCCL_ENABLE_TIMING", "torch_old", "TORCH_NCCL_ENABLE_TIMING"},
    {"NCCL_IB_GDR_LEVEL", "renamed", "NCCL_NET_GDR_LEVEL"},
    {"NCCL_MAX_NRINGS", "renamed", "NCCL_MAX_CTAS"},
    {"NCCL_MIN_NRINGS", "renamed", "NCCL_MIN_CTAS"},
};

std::string pretty(std::string_view alts) {
  std::string o(alts);
  std::replace(o.begin(), o.end(), '|', ' ');
  return o;
}

bool in_alts(std::string_view alts, std::string_view v) {
  for (auto a : split(alts, '|')) {
    if (a == v) return true;
  }
  return false;
}

}  // namespace

const std::vector<NcclVarSpec>& nccl_var_table() { return kVars; }

const NcclVarSpec* find_nccl_var(std::string_view name) {
  for (const auto& v : kVars) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

const MisnamedVar* find_misnamed_var(std::string_view name) {
  for (const auto& v : kMisnamed) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

bool is_plugin_var(std::string_view name) {
  for (std::string_view p : {"NCCL_GPUDIRECTTCPX_", "NCCL_FASTRAK_", "NCCL_TCPX_", "NCCL_TCPXO_", "NCCL_OFI_",
                             "NCCL_NET_OFI_", "NCCL_SHARP_", "NCCL_TESTS_"}) {
    if (starts_with(name, p)) return true;
  }
  return false;
}

bool is_audited_var(std::string_view name) {
  // NVIDIA's CUDA container images record the NCCL package they ship in NCCL_VERSION
  // ("ENV NCCL_VERSION 2.17.1-1", gitlab.com/nvidia/container-images/cuda runtime Dockerfiles):
  // a label, not a setting, present in every job started from such an image.
  if (name == "NCCL_VERSION") return false;
  return starts_with(name, "NCCL_") || starts_with(name, "TORCH_NCCL_") || starts_with(name, "TORCH_DISTRIBUTED_") ||
         starts_with(name, "TORCH_FR_");
}

ValueVerdict check_nccl_value(const NcclVarSpec& spec, std::string_view raw) {
  std::string_view value = trim(raw);
  std::string_view s = spec.spec;
  ValueVerdict v;
  if (s == "any") return v;
  if (s == "bool") {
    v.allowed = "0 1";
    if (value != "0" && value != "1") v.problem = parse_int(value) ? "range" : "not_int";
    return v;
  }
  if (starts_with(s, "int:")) {
    auto parts = split(s.substr(4), ':');
    auto lo = parse_int(parts.size() > 0 ? parts[0] : "");
    auto hi = parse_int(parts.size() > 1 ? parts[1] : "");
    v.allowed = std::string(parts.size() > 0 ? parts[0] : "") + ".." + std::string(parts.size() > 1 ? parts[1] : "");
    auto n = parse_int(value);
    if (!n) v.problem = "not_int";
    else if ((lo && *n < *lo) || (hi && *n > *hi)) v.problem = "range";
    return v;
  }
  if (starts_with(s, "set:")) {
    v.allowed = pretty(s.substr(4));
    if (!in_alts(s.substr(4), value)) v.problem = parse_int(value) ? "not_allowed" : "not_int";
    return v;
  }
  if (starts_with(s, "enum:") || starts_with(s, "enumi:")) {
    bool nocase = starts_with(s, "enumi:");
    std::string_view alts = s.substr(nocase ? 6 : 5);
    v.allowed = pretty(alts);
    if (in_alts(alts, value)) return v;
    if (in_alts(alts, to_upper(value))) {
      if (!nocase) v.problem = "case";
      return v;
    }
    v.problem = "not_allowed";
    return v;
  }
  if (s == "level") {
    v.allowed = "LOC NVL PIX PXB PHB SYS";
    if (in_alts("LOC|NVL|PIX|PXB|PHB|SYS", value)) return v;
    // ncclGetLevel compares with strcmp: "sys" matches nothing and is silently ignored.
    if (in_alts("LOC|NVL|PIX|PXB|PHB|SYS", to_upper(value))) {
      v.problem = "case";
    } else if (auto n = parse_int(value); n && *n >= 0) {
      v.problem = "legacy_int";
    } else {
      v.problem = "not_allowed";
    }
    return v;
  }
  if (starts_with(s, "list:")) {
    std::string_view alts = s.substr(5);
    v.allowed = pretty(alts);
    // NCCL 2.24+ per-collective syntax ("allreduce:tree;broadcast:ring") is not checked token by token.
    if (value.find(':') != std::string_view::npos || value.find(';') != std::string_view::npos) return v;
    std::string_view list = value;
    if (!list.empty() && list.front() == '^') list.remove_prefix(1);
    for (auto tok : split(list, ',')) {
      if (!in_alts(alts, to_upper(trim(tok)))) {
        v.problem = "not_allowed";
        return v;
      }
    }
    return v;
  }
  return v;
}

}  // namespace plumb
