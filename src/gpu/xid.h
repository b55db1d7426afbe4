// NVIDIA Xid codes as data (../shared/knowledge/xid.md: NVIDIA's Xid catalog and gpud's severity
// classes) and the join of kernel-log Xid events to GPUs by PCI id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/facts/gpu.h"
#include "core/facts/host_kmsg.h"

namespace plumb {

enum class XidSeverity { fatal, critical, warning, app, info };

struct XidInfo {
  int code;
  const char* name;       // "GPU_HAS_FALLEN_OFF_THE_BUS"
  XidSeverity severity;
  const char* action;     // what to do, one line (English; the catalogue row gives the zh text)
};
// The row for `code`, nullptr for codes the table does not know.
const XidInfo* xid_info(int code);
const std::vector<XidInfo>& xid_table();

// Xid events as the GPU rules need them, independent of the kernel-log facts' layout.
struct XidSeen {
  std::string pci;  // "0000:3b:00" (domain:bus:device, as NVRM prints it)
  int code = 0;
  std::uint64_t count = 0;
  bool fatal_word = false;  // Xid 144-150 lines that said "Fatal"
  std::string first_line;
};

// The Xid events of the kernel-log facts; nullopt when this build's KernelLogFacts carry none
// (the host kernel-log collector is a separate area), with `why` saying so.
template <class K>
std::optional<std::vector<XidSeen>> xids_from_kernel_log(const K& k, std::string& why) {
  if constexpr (requires { k.xids; k.records; }) {
    if (!k.collected) {
      why = "the kernel log was not read";
      return std::nullopt;
    }
    if (!k.records.has()) {
      why = "kernel log unreadable: " + k.records.why();
      return std::nullopt;
    }
    std::vector<XidSeen> out;
    for (const auto& x : k.xids) out.push_back({x.pci, x.code, x.count, x.fatal_word, x.first_line});
    return out;
  } else {
    why = "this build's kernel-log facts carry no Xid events";
    return std::nullopt;
  }
}

// The GPU an Xid's "0000:3b:00" names (bus id "0000:3b:00.x"), or nullptr.
const GpuDevice* gpu_for_xid(const GpuFacts& g, const std::string& pci);

}  // namespace plumb
