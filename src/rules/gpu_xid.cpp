// Xid events from the kernel log, joined to the GPU by PCI id, judged by the Xid table.
#include "core/catalog.h"
#include "gpu/xid.h"
#include "rules/gpu_common.h"

namespace plumb {

namespace {

const bool kCatalog = register_findings({
    {"l3.gpu.xid", Layer::L3, Pillar::platform, Section::gpu,
     {"NVIDIA Xid errors in the kernel log", "内核日志中的 NVIDIA Xid 错误"},
     {{"pass", {"no Xid error in the kernel log", "内核日志中没有 Xid 错误"}},
      {"fail", {"Xid {code} ({name}) ×{count}: {action}", "Xid {code}（{name}）×{count}：{action}"}},
      {"warn", {"Xid {code} ({name}) ×{count}: {action}", "Xid {code}（{name}）×{count}：{action}"}},
      {"app", {"Xid {code} ({name}) ×{count}: caused by an application, not the GPU: {action}",
               "Xid {code}（{name}）×{count}：由应用程序引起而非 GPU 故障：{action}"}}},
     {"Act on the Xid's action; for hardware Xids (48, 64, 74, 79, 95, 119, 140) drain the node, reset or "
      "reboot, and open an RMA if it repeats.",
      "按 Xid 对应的处理建议操作；硬件类 Xid（48、64、74、79、95、119、140）需排空节点、重置或重启，反复出现则申请返修。"},
     "dmesg -T | grep -i 'NVRM: Xid'",
     {},
     {}},
});

std::vector<Finding> judge_xid(const Facts& f, const Thresholds&) {
  const std::string id = "l3.gpu.xid";
  std::string why;
  auto xids = xids_from_kernel_log(f.host.kmsg, why);
  if (!xids) return {skipped(id, why)};
  std::vector<Finding> out;
  for (const auto& x : *xids) {
    const XidInfo* info = xid_info(x.code);
    Finding r;
    r.id = id;
    const GpuDevice* d = gpu_for_xid(f.gpu, x.pci);
    r.subject = d != nullptr ? gpu_rules::subject_of(*d) : "pci " + x.pci;
    r.arg("code", std::to_string(x.code)).arg("count", std::to_string(x.count));
    r.arg("name", info != nullptr ? info->name : "unknown Xid");
    r.arg("action", info != nullptr ? info->action : "look the code up in NVIDIA's Xid catalog");
    r.add("Xid " + std::to_string(x.code), x.first_line, "kernel log (PCI " + x.pci + ")");
    XidSeverity sev = info != nullptr ? info->severity : XidSeverity::warning;
    if (x.fatal_word) sev = XidSeverity::fatal;  // NVLink5 Xids 144-150 carry their own severity
    switch (sev) {
      case XidSeverity::fatal:
      case XidSeverity::critical: r.status = Status::fail; break;
      case XidSeverity::warning:
      case XidSeverity::info: r.status = Status::warn; break;
      case XidSeverity::app: r.status = Status::warn; r.variant = "app"; break;
    }
    r.threshold = "no Xid";
    out.push_back(std::move(r));
  }
  if (out.empty()) {
    Finding p;
    p.id = id;
    p.status = Status::pass;
    out.push_back(std::move(p));
  }
  return out;
}

const bool kRule = register_rule({"l3.gpu.xid", {"collect.kmsg", "collect.gpu"}, judge_xid});

}  // namespace
}  // namespace plumb
