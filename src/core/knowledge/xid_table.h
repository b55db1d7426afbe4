// NVIDIA Xid codes as data: name, meaning, cause category, severity for a health report and the
// recommended action (from shared/knowledge/xid.md: NVIDIA's Xid catalog, the r555 table with
// its cause flags, open-gpu-kernel-modules nverror.h, k8s-device-plugin's application-Xid list).
#pragma once

#include <string>

#include "core/finding.h"
#include "core/i18n.h"

namespace plumb {

struct XidInfo {
  int code = 0;
  const char* name = "";  // NVIDIA's mnemonic (nverror.h / catalog)
  Text meaning;           // what happened
  Text cause;             // cause category: user application, driver, memory ECC, PCIe bus, NVLink...
  Status severity = Status::warn;  // fail: hardware/driver fault that needs a reset, drain or RMA; warn: usually the application
  Text action;            // the catalog's recommended action
};

// The row for a code, or nullptr when the table does not know it.
const XidInfo* find_xid(int code);
// Xids 144-150 (NVLink5) print their own severity word; the table severity is a placeholder.
bool xid_severity_from_line(int code);

}  // namespace plumb
