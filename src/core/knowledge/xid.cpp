// The Xid table (data, not if-chains). Each row says why it has its severity. The rule of thumb,
// from the action NVIDIA's Xid catalog documents for the code: a GPU reset, node reboot, drain or
// hardware service -> fail; an application restart, nothing, or "monitor" -> warn. The Xids that
// are usually the application (13, 31, 43, 45, 68: k8s-device-plugin does not count them against
// the GPU) warn and are marked `app`.
#include "core/knowledge/xid.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace plumb {

namespace {

const Text kApp{"user application (usually)", "用户程序（通常）"};
const Text kDriver{"driver / firmware", "驱动 / 固件"};
const Text kEcc{"GPU memory ECC (hardware)", "显存 ECC（硬件）"};
const Text kBus{"PCIe bus, power or thermal (hardware)", "PCIe 总线、供电或散热（硬件）"};
const Text kXidNvlink{"NVLink (hardware or peer)", "NVLink（硬件或对端）"};
const Text kHw{"hardware / driver", "硬件 / 驱动"};

const Text kRestartApp{"restart the application; if it repeats across applications or GPUs, follow NVIDIA's Xid workflow",
                       "重启应用；若在不同应用或 GPU 上反复出现，按 NVIDIA 的 Xid 排查流程处理"};
const Text kResetGpu{"drain the GPU's jobs and reset the GPU (nvidia-smi -r) or reboot; contact support if it recurs",
                     "排空该 GPU 上的作业后重置 GPU（nvidia-smi -r）或重启；反复出现请联系厂商支持"};
const Text kRma{"drain the node, reset the GPU; repeated occurrences mean RMA (contact support)",
                "排空节点并重置 GPU；反复出现需走 RMA（联系厂商支持）"};
const Text kNvlinkAction{"follow NVIDIA's NVLink workflow (the peer end may be the cause); reset the GPU; contact support if it persists",
                         "按 NVIDIA 的 NVLink 排查流程处理（也可能是对端引起）；重置 GPU；持续出现请联系厂商支持"};
const Text kSupport{"contact support", "联系厂商支持"};

constexpr Status F = Status::fail;
constexpr Status W = Status::warn;

const char* const kUnusedSince = "not raised on Ampere and later GPUs; no reset documented";
const char* const kNvlink5 = "NVLink5 lines print their own severity word; the default applies when they do not";

const std::array<XidInfo, 42> kTable{{
    {8, "IDLE_TIMEOUT", {"GPU stopped processing (channel timeout)", "GPU 停止处理（通道超时）"}, kHw, W, false,
     "an application restart recovers the channel",
     {"restart the application; contact support if it recurs", "重启应用；反复出现请联系厂商支持"}},
    {13, "ROBUST_CHANNEL_GR_EXCEPTION",
     {"graphics engine exception (SM warp exception, illegal or out-of-range address)", "图形引擎异常（SM warp 异常、非法或越界地址）"},
     kApp, W, true, "usually an application bug (bad address); the GPU stays healthy", kRestartApp},
    {31, "FIFO_ERROR_MMU_ERR_FLT", {"GPU memory page fault (illegal address access)", "GPU 显存页错误（非法地址访问）"}, kApp, W,
     true, "usually an application's illegal memory access; the GPU stays healthy", kRestartApp},
    {32, "PBDMA_ERROR", {"invalid or corrupted push buffer stream", "命令推送缓冲流无效或损坏"}, kHw, W, false,
     "the documented action is an application restart and a check of the CUDA stack, no GPU reset",
     {"restart the application; check the application and the CUDA stack", "重启应用；检查应用与 CUDA 软件栈"}},
    {38, "FECS_WATCHDOG", {"driver firmware error / watchdog timeout", "驱动固件错误 / 看门狗超时"}, kDriver, W, false,
     "isolated occurrences need no action; only repeats need support",
     {"ignore if isolated; contact support if repeated", "偶发可忽略；反复出现请联系厂商支持"}},
    {43, "RESETCHANNEL_VERIF_ERROR", {"GPU stopped processing (channel reset after an application fault)", "GPU 停止处理（应用故障后通道被重置）"},
     kApp, W, true, "the faulting application was already stopped; the GPU stays healthy",
     {"none needed (the faulting application was already stopped)", "无需处理（出错的应用已被终止）"}},
    {45, "PREEMPTIVE_REMOVAL", {"preemptive cleanup after another error or a process kill", "另一错误或进程被杀后的预防性清理"}, kApp, W,
     true, "cleanup after a process ended or another Xid; the preceding Xid carries the severity",
     {"follow the Xid that preceded it", "按在它之前出现的 Xid 处理"}},
    {48, "GPU_ECC_DBE", {"double-bit (uncorrectable) ECC error in GPU memory", "显存双比特（不可纠正）ECC 错误"}, kEcc, F, false,
     "uncorrectable memory error: the GPU must be drained and reset",
     {"drain and reset the GPU; if Xid 63/64 follow, check the row-remap status; RMA if it repeats",
      "排空作业并重置 GPU；若随后出现 Xid 63/64，检查行重映射状态；反复出现需 RMA"}},
    {56, "DISPLAY_ENGINE_ERROR", {"display engine error", "显示引擎错误"}, kHw, W, false, kUnusedSince, kSupport},
    {57, "VIDEO_MEMORY_INTERFACE_ERROR", {"error programming the video memory interface", "显存接口编程错误"}, kHw, W, false, kUnusedSince,
     kSupport},
    {61, "PMU_BREAKPOINT", {"internal micro-controller breakpoint/warning", "内部微控制器断点/告警"}, kDriver, F, false,
     "the micro-controller stopped: the GPU needs a reset", kResetGpu},
    {62, "PMU_HALT_ERROR", {"internal micro-controller halt", "内部微控制器停机"}, kHw, F, false,
     "the micro-controller halted: the GPU needs a reset", kResetGpu},
    {63, "INFOROM_PAGE_RETIREMENT_EVENT", {"ECC page retirement / row remapping recorded", "已记录 ECC 页退役 / 行重映射"}, kEcc, W, false,
     "the retirement or remap was recorded; it takes effect at the next reset, which can wait for a drain",
     {"reset the GPU when convenient to activate the remap", "在方便时重置 GPU 以激活重映射"}},
    {64, "INFOROM_PAGE_RETIREMENT_FAILURE", {"page retirement / row remapping failed to record", "页退役 / 行重映射记录失败"}, kEcc, F,
     false, "the bad memory could not be retired: the GPU needs a reset and likely an RMA", kRma},
    {68, "NVDEC0_ERROR", {"video decoder exception", "视频解码器异常"}, kApp, W, true,
     "a video-decoder exception of one application; the GPU stays healthy", kRestartApp},
    {69, "GR_CLASS_ERROR", {"graphics engine class error", "图形引擎类错误"}, kHw, W, false,
     "the documented action is an application restart, no GPU reset",
     {"restart the application; check the application", "重启应用；检查应用"}},
    {74, "NVLINK_ERROR", {"NVLink error (link, replay or fatal)", "NVLink 错误（链路、重放或致命）"}, kXidNvlink, F, false,
     "an NVLink fault: the GPU needs a reset", kNvlinkAction},
    {79, "GPU_HAS_FALLEN_OFF_THE_BUS", {"GPU has fallen off the bus: no longer reachable on PCIe", "GPU 已从总线上掉线：PCIe 上不可达"}, kBus, F,
     false, "the GPU is gone from PCIe: only a node reboot brings it back",
     {"drain the node and reboot; check PCIe seating, riser, power and cooling; RMA if it recurs",
      "排空节点并重启；检查 PCIe 插接、转接卡、供电与散热；反复出现需 RMA"}},
    {92, "EXCESSIVE_SBE_INTERRUPTS", {"high single-bit ECC error rate", "单比特 ECC 错误率过高"}, kEcc, W, false,
     "single-bit errors are corrected; the rate is to be monitored",
     {"monitor; contact support if sustained", "持续观察；持续出现请联系厂商支持"}},
    {94, "CONTAINED_ERROR", {"contained uncorrectable ECC error (only the affected application was killed)", "已隔离的不可纠正 ECC 错误（仅受影响的应用被终止）"},
     kEcc, W, false, "contained: only the affected application was killed, the GPU keeps serving; the reset can wait for a drain",
     {"restart the application; reset the GPU when convenient", "重启应用；在方便时重置 GPU"}},
    {95, "UNCONTAINED_ERROR", {"uncontained uncorrectable ECC error (every application on the GPU is affected)", "未能隔离的不可纠正 ECC 错误（该 GPU 上所有应用受影响）"},
     kEcc, F, false, "uncontained: every application on the GPU is affected until it is reset",
     {"drain every job on the GPU and reset it now", "立即排空该 GPU 上所有作业并重置"}},
    {109, "CTXSW_TIMEOUT", {"context-switch timeout", "上下文切换超时"}, kHw, F, false,
     "the documented action is a GPU reset", kResetGpu},
    {110, "SEC_FAULT_ERROR", {"security fault", "安全故障"}, kHw, F, false, "the GPU needs a cold reset",
     {"cold-reset the GPU; revert recent hardware changes", "冷重置 GPU；回退近期硬件变更"}},
    {119, "GSP_RPC_TIMEOUT", {"timeout waiting for a GSP firmware RPC response", "等待 GSP 固件 RPC 响应超时"}, kDriver, F, false,
     "the GPU's firmware stopped answering: the GPU needs a reset",
     {"reset the GPU; check the driver version (GSP firmware issues are driver-specific)", "重置 GPU；检查驱动版本（GSP 固件问题与驱动版本相关）"}},
    {120, "GSP_ERROR", {"GSP firmware error", "GSP 固件错误"}, kDriver, F, false, "a firmware error: the GPU needs a reset",
     {"reset the GPU; check the driver version", "重置 GPU；检查驱动版本"}},
    {121, "C2C_ERROR", {"chip-to-chip (C2C) link error", "芯片间（C2C）链路错误"}, kHw, F, false,
     "the line does not say whether the link error was corrected; an uncorrected one needs support",
     {"ignore if corrected; contact support otherwise", "若已纠正可忽略；否则联系厂商支持"}},
    {122, "SPI_PMU_RPC_READ_FAIL", {"SPI flash read failure", "SPI 闪存读取失败"}, kHw, W, false, kUnusedSince, kSupport},
    {123, "SPI_PMU_RPC_WRITE_FAIL", {"SPI flash write failure", "SPI 闪存写入失败"}, kHw, W, false, kUnusedSince, kSupport},
    {124, "SPI_PMU_RPC_ERASE_FAIL", {"SPI flash erase failure", "SPI 闪存擦除失败"}, kHw, W, false, kUnusedSince, kSupport},
    {136, "ALI_TRAINING_FAIL", {"NVLink link training failure", "NVLink 链路训练失败"}, kXidNvlink, F, false,
     "the link did not come up: the GPU needs a reset", kNvlinkAction},
    {137, "NVLINK_FLA_PRIV_ERR", {"NVLink fabric-address privilege error", "NVLink 结构地址权限错误"}, kXidNvlink, W, false,
     "an access-rights error of one fabric address; no reset documented", kSupport},
    {140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", {"uncorrectable ECC error escaped containment", "不可纠正 ECC 错误未被隔离"}, kEcc, F, false,
     "an uncorrectable error escaped containment: the GPU needs a reset", kRma},
    {143, "GPU_INIT_ERROR", {"GPU initialization failure", "GPU 初始化失败"}, kHw, F, false, "the GPU did not initialise", kRma},
    {144, "NVLINK_SAW_ERROR", {"NVLink5 SAW sub-unit error", "NVLink5 SAW 子单元错误"}, kXidNvlink, W, false, kNvlink5, kNvlinkAction},
    {145, "NVLINK_RLW_ERROR", {"NVLink5 RLW sub-unit error", "NVLink5 RLW 子单元错误"}, kXidNvlink, W, false, kNvlink5, kNvlinkAction},
    {146, "NVLINK_TLW_ERROR", {"NVLink5 TLW sub-unit error", "NVLink5 TLW 子单元错误"}, kXidNvlink, W, false, kNvlink5, kNvlinkAction},
    {147, "NVLINK_TREX_ERROR", {"NVLink5 TREX sub-unit error", "NVLink5 TREX 子单元错误"}, kXidNvlink, W, false, kNvlink5, kNvlinkAction},
    {148, "NVLINK_NVLPW_CTRL_ERROR", {"NVLink5 NVLPW control error", "NVLink5 NVLPW 控制错误"}, kXidNvlink, W, false, kNvlink5,
     kNvlinkAction},
    {149, "NVLINK_NETIR_ERROR", {"NVLink5 network-interface error (e.g. link down)", "NVLink5 网络接口错误（如链路断开）"}, kXidNvlink, W,
     false, kNvlink5, kNvlinkAction},
    {150, "NVLINK_MSE_ERROR", {"NVLink5 management (MSE) error", "NVLink5 管理单元（MSE）错误"}, kXidNvlink, W, false, kNvlink5,
     kNvlinkAction},
    {154, "GPU_RECOVERY_ACTION_CHANGED", {"the driver changed the GPU's required recovery action", "驱动更改了该 GPU 所需的恢复动作"}, kDriver,
     W, false, "the new action is named in the line and may be none",
     {"act on the new recovery action the line names (GPU reset, node reboot, drain)", "按该行给出的新恢复动作处理（重置 GPU、重启节点、排空）"}},
    {155, "NVLINK_SW_DEFINED_ERROR", {"software-defined NVLink error", "软件定义的 NVLink 错误"}, kXidNvlink, F, false,
     "the documented action is a GPU reset",
     {"reset the GPU; check the software and user configuration", "重置 GPU；检查软件与用户配置"}},
}};

}  // namespace

std::span<const XidInfo> xid_table() { return kTable; }

const XidInfo* find_xid(int code) {
  auto it = std::lower_bound(kTable.begin(), kTable.end(), code, [](const XidInfo& x, int c) { return x.code < c; });
  return it == kTable.end() || it->code != code ? nullptr : &*it;
}

bool xid_severity_from_line(int code) { return code >= 144 && code <= 150; }

Status xid_status(int code, bool fatal_word) {
  if (xid_severity_from_line(code) && fatal_word) return Status::fail;
  const XidInfo* info = find_xid(code);
  return info == nullptr ? Status::warn : info->severity;
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
