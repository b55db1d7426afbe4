// Xid events from the kernel log, one finding per (GPU, code), joined to the GPU by PCI id and
// judged by the Xid table (core/knowledge/xid): severity, meaning, likely cause and action.
#include "core/catalog.h"
#include "core/knowledge/xid.h"
#include "rules/gpu_common.h"
#include "core/tables.h"

namespace plumb {

namespace {



std::vector<Finding> judge_xid(const Facts& f, const Thresholds&) {
  const std::string id = "l3.gpu.xid";
  const auto& k = f.host.kmsg;
  if (!k.collected) return {skipped(id, "the kernel log was not read")};
  if (!k.records.has()) return {skipped(id, "kernel log unreadable: " + k.records.why())};
  std::vector<Finding> out;
  for (const auto& x : k.xids) {
    Finding r;
    r.id = id;
    const GpuDevice* d = gpu_for_xid(f.gpu, x.pci);
    r.subject = d != nullptr ? gpu_rules::subject_of(*d) : "gpu " + x.pci;
    r.threshold = "no Xid";
    r.arg("pci", x.pci).arg("code", std::to_string(x.code)).arg("count", std::to_string(x.count));
    r.arg("first_time", x.first_time.empty() ? "?" : x.first_time).arg("last_time", x.last_time.empty() ? "?" : x.last_time);
    r.add("Xid " + std::to_string(x.code) + " x" + std::to_string(x.count), x.first_line,
          k.records.source + (x.first_time.empty() ? "" : " " + x.first_time));
    if (!x.process.empty()) r.add("name", x.process, k.records.source);
    r.status = xid_status(x.code, x.fatal_word);
    const XidInfo* info = find_xid(x.code);
    if (info == nullptr) {
      r.variant = "unknown";
      r.arg("action", tr(Lang::en, "xid.unknown_action")).arg("action_zh", tr(Lang::zh, "xid.unknown_action"));
    } else {
      if (info->app && r.status == Status::warn) r.variant = "app";
      r.arg("name", info->name);
      r.arg("meaning", info->meaning.en).arg("meaning_zh", info->meaning.zh);
      r.arg("cause", info->cause.en).arg("cause_zh", info->cause.zh);
      r.arg("action", info->action.en).arg("action_zh", info->action.zh);
    }
    out.push_back(std::move(r));
  }
  if (out.empty()) {
    Finding p;
    p.id = id;
    p.status = Status::pass;
    p.threshold = "no Xid";
    p.arg("records", std::to_string(*k.records));
    out.push_back(std::move(p));
  }
  return out;
}


// Xid lines in the kernel log were once judged on their own; the GPU rule judges them now.

}  // namespace
void rules_gpu_xid_tables(Tables& t) {
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {"l3.gpu.xid", Layer::L3, Pillar::platform, Section::gpu,
     {"NVIDIA Xid errors in the kernel log", "内核日志中的 NVIDIA Xid 错误"},
     {{"pass", {"no NVIDIA Xid error in the kernel log ({records} lines read).", "内核日志中没有 NVIDIA Xid 错误（读取 {records} 行）。"}},
      {"fail",
       {"Xid {code} ({name}), {count} time(s) from {first_time} to {last_time}: {meaning}. Likely cause: {cause}.",
        "Xid {code}（{name}）{count} 次（{first_time} 至 {last_time}）：{meaning_zh}。可能原因：{cause_zh}。"}},
      {"warn",
       {"Xid {code} ({name}), {count} time(s) from {first_time} to {last_time}: {meaning}. Likely cause: {cause}.",
        "Xid {code}（{name}）{count} 次（{first_time} 至 {last_time}）：{meaning_zh}。可能原因：{cause_zh}。"}},
      {"app",
       {"Xid {code} ({name}), {count} time(s) from {first_time} to {last_time}: {meaning}; usually caused by the "
        "application, not the GPU.",
        "Xid {code}（{name}）{count} 次（{first_time} 至 {last_time}）：{meaning_zh}；通常由应用程序引起，而非 GPU 故障。"}},
      {"unknown",
       {"Xid {code}, {count} time(s) from {first_time} to {last_time}: not in plumb's Xid table; look it up in NVIDIA's "
        "Xid catalog.",
        "Xid {code} {count} 次（{first_time} 至 {last_time}）：不在 plumb 的 Xid 表中，请查阅 NVIDIA Xid 目录。"}}},
     {"{action}", "{action_zh}"},
     "dmesg -T | grep 'NVRM: Xid (PCI:{pci}'",
     {},
     {}},
};
});
  t.add_ui([] {
  return std::vector<UiString>{{"xid.unknown_action",
                               {"look the code up in NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors) and follow its action",
                                "在 NVIDIA Xid 目录（docs.nvidia.com/deploy/xid-errors）中查找该代码并按其建议处理"}}};
});
  t.add_rule({"l3.gpu.xid", {"collect.kmsg", "collect.gpu"}, judge_xid});
  t.add_alias("l3.kernel.xid_errors", "l3.gpu.xid");
}

}  // namespace plumb
