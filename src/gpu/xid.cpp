// The Xid table: severity from gpud's classes of NVIDIA's r555 table, actions from NVIDIA's catalog.
#include "gpu/xid.h"

#include <algorithm>
#include <cctype>

namespace plumb {

const std::vector<XidInfo>& xid_table() {
  using S = XidSeverity;
  static const std::vector<XidInfo> t = {
      {8, "IDLE_TIMEOUT", S::warning, "restart the application; contact support if it recurs"},
      {13, "ROBUST_CHANNEL_GR_EXCEPTION", S::app, "application fault (illegal address): fix or restart the application"},
      {31, "FIFO_ERROR_MMU_ERR_FLT", S::app, "GPU memory page fault in the application: fix or restart it"},
      {32, "PBDMA_ERROR", S::fatal, "corrupted push buffer: restart the application, check the CUDA stack"},
      {38, "FECS_WATCHDOG", S::fatal, "driver firmware watchdog: ignore if isolated, contact support if repeated"},
      {43, "RESETCHANNEL_VERIF_ERROR", S::app, "the application's channel was reset (app already killed)"},
      {45, "PREEMPTIVE_REMOVAL", S::app, "cleanup after another error: follow the Xid that preceded it"},
      {48, "GPU_ECC_DBE", S::fatal, "double-bit ECC error: drain and reset the GPU; RMA if it repeats"},
      {61, "PMU_BREAKPOINT", S::fatal, "micro-controller breakpoint: reset the GPU, contact support"},
      {62, "PMU_HALT_ERROR", S::fatal, "micro-controller halt: reset the GPU, contact support if it recurs"},
      {63, "INFOROM_PAGE_RETIREMENT_EVENT", S::info, "page retirement / row remap recorded: reset the GPU when convenient"},
      {64, "INFOROM_PAGE_RETIREMENT_FAILURE", S::fatal, "retirement/remap recording failed: reset promptly, RMA"},
      {68, "NVDEC0_ERROR", S::app, "video decoder exception: restart the application"},
      {69, "GR_CLASS_ERROR", S::fatal, "graphics engine class error: restart the application"},
      {74, "NVLINK_ERROR", S::fatal, "NVLink error: reset the GPU; contact support if it persists"},
      {79, "GPU_HAS_FALLEN_OFF_THE_BUS", S::fatal, "GPU fell off the bus: drain and reboot; check PCIe riser, power, cooling"},
      {92, "EXCESSIVE_SBE_INTERRUPTS", S::warning, "high single-bit ECC rate: monitor, contact support if sustained"},
      {94, "CONTAINED_ERROR", S::critical, "contained ECC error: restart the application, reset the GPU when convenient"},
      {95, "UNCONTAINED_ERROR", S::fatal, "uncontained ECC error: drain all jobs and reset the GPU now"},
      {109, "CTXSW_TIMEOUT", S::warning, "context-switch timeout: reset the GPU if it recurs"},
      {110, "SEC_FAULT_ERROR", S::fatal, "security fault: cold-reset the GPU"},
      {119, "GSP_RPC_TIMEOUT", S::fatal, "GSP firmware timeout: reset the GPU, review the driver version"},
      {120, "GSP_ERROR", S::fatal, "GSP firmware error: reset the GPU, review the driver version"},
      {121, "C2C_ERROR", S::fatal, "chip-to-chip link error: contact support if uncorrected"},
      {140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", S::fatal, "ECC error escaped containment: reset the GPU"},
      {143, "GPU_INIT_ERROR", S::fatal, "GPU initialisation failure: reset, then RMA"},
      {154, "GPU_RECOVERY_ACTION_CHANGED", S::critical, "the driver asks for a recovery action: follow it (reset/reboot)"},
  };
  return t;
}

const XidInfo* xid_info(int code) {
  for (const auto& r : xid_table()) {
    if (r.code == code) return &r;
  }
  return nullptr;
}

const GpuDevice* gpu_for_xid(const GpuFacts& g, const std::string& pci) {
  std::string want;
  for (char c : pci) want += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (want.rfind("pci:", 0) == 0) want = want.substr(4);
  // NVRM prints domain:bus:device; older lines may omit the domain.
  if (std::count(want.begin(), want.end(), ':') == 1) want = "0000:" + want;
  for (const auto& d : g.devices) {
    if (!d.bus_id.empty() && d.bus_id.rfind(want + ".", 0) == 0) return &d;
  }
  return nullptr;
}

}  // namespace plumb
