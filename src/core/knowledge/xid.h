// NVIDIA Xid codes as data and the join of kernel-log Xid events to GPUs by PCI id.
// Sources: NVIDIA "Xid Errors" (https://docs.nvidia.com/deploy/xid-errors/index.html) and its Xid
// catalog (analyzing-xid-catalog.html) for names, meanings, causes and actions; the code names of
// open-gpu-kernel-modules src/common/sdk/nvidia/inc/nverror.h; the application Xids that
// k8s-device-plugin (internal/rm/health.go) does not count against a GPU.
#pragma once

#include <span>
#include <string>

#include "core/facts/gpu.h"
#include "core/finding.h"
#include "core/i18n.h"

namespace plumb {

struct XidInfo {
  int code = 0;
  const char* name = "";  // NVIDIA's mnemonic (nverror.h / catalog)
  Text meaning;           // what happened
  Text cause;             // cause category: user application, driver, memory ECC, PCIe bus, NVLink...
  // fail: the GPU needs a reset, a node reboot, a drain or hardware service before it is trusted
  // again; warn: an application restart is enough, or the event is informational / monitor-only.
  Status severity = Status::warn;
  bool app = false;       // usually caused by the application, not the GPU
  const char* why = "";   // why this severity, from the documented meaning and action
  Text action;            // the catalog's recommended action
};

// Every row, ordered by code.
std::span<const XidInfo> xid_table();
// The row for a code, or nullptr when the table does not know it.
const XidInfo* find_xid(int code);
// Xids 144-150 (NVLink5) print their own severity word ("Nonfatal", "Fatal", "Link Fatal"); for
// them the table severity is only the default when the line says nothing.
bool xid_severity_from_line(int code);
// The status of an Xid seen in the log: the table's, the line's word for 144-150, warn when unknown.
Status xid_status(int code, bool fatal_word);

// The GPU an Xid's "0000:3b:00" names (bus id "0000:3b:00.x"), or nullptr.
const GpuDevice* gpu_for_xid(const GpuFacts& g, const std::string& pci);

}  // namespace plumb
