// The diagnosis block of the text reports (`plumb diagnose`): per L1 symptom, the log lines and
// values it rests on, then its candidate causes in the order confirmed, refuted, not checkable,
// each with what the machine's own check says; then the evidence still to capture.
#include <algorithm>

#include "core/catalog.h"
#include "core/phrases.h"
#include "report/report.h"
#include "report/table.h"
#include "rules/diagnose.h"
#include "core/tables.h"

namespace plumb {
namespace {

bool is_symptom(const Finding& f) {
  return f.id.starts_with("l1.log.") || f.id.starts_with("l1.symptom.") || f.id == kNoMatchId;
}

std::string arg(const Finding& f, const char* k) {
  auto it = f.args.find(k);
  return it == f.args.end() ? std::string() : it->second;
}

// What the machine's check says: the message of its worst finding.
std::string machine_says(const Report& r, const std::string& check, Lang lang) {
  const Finding* best = nullptr;
  for (const auto& f : r.findings) {
    if (f.id != check) continue;
    if (best == nullptr || f.status < best->status) best = &f;
  }
  if (best == nullptr) return {};
  return (best->subject == "host" ? "" : best->subject + ": ") + finding_message(*best, lang);
}

std::string diagnose_block(const Report& r, const RenderOptions& o, const std::string& format) {
  if (std::none_of(r.findings.begin(), r.findings.end(), is_symptom)) return {};
  const Lang lang = o.lang;
  const std::string ind = format == "term" ? "    " : "";
  // The machine the causes were checked on, as the cause findings name it.
  std::string machine = tr(lang, "diagnose.this_machine");
  for (const auto& f : r.findings) {
    auto it = f.args.find(lang == Lang::zh ? "machine_zh" : "machine_en");
    if (f.id == kCauseId && it != f.args.end()) {
      machine = it->second;
      break;
    }
  }
  std::string out = block_heading(fill(tr(lang, "diagnose.heading"), {{"machine", machine}}), format);
  for (const auto& s : r.findings) {
    if (!is_symptom(s)) continue;
    const CatalogEntry* e = find_entry(s.id);
    std::string title = e != nullptr ? e->title.in(lang) : s.id;
    out += block_line("L1 " + title + " [" + s.id + "]: " + finding_message(s, lang), format);
    if (s.id.starts_with("l1.log.")) {
      for (const auto& ev : s.evidence) {
        if (ev.what.find(':') == std::string::npos) continue;  // the lines; the values follow
        out += block_line(ind + tr(lang, "diagnose.line") + " " + ev.what + ": " + ev.value, format);
      }
      std::string values;
      for (const auto& ev : s.evidence) {
        if (ev.what.find(':') != std::string::npos) continue;
        if (!values.empty()) values += ", ";
        values += ev.what;
        values += " = ";
        values += ev.value;
      }
      if (!values.empty()) {
        std::string line = ind;
        line += tr(lang, "diagnose.values");
        line += " ";
        line += values;
        out += block_line(line, format);
      }
    }
    // Causes in verdict order (the findings already are; keep it if they were re-ordered).
    for (const char* verdict : {"confirmed", "refuted", "not_checkable"}) {
      for (const auto& c : r.findings) {
        if (c.id != kCauseId || arg(c, "symptom") != s.id || arg(c, "verdict") != verdict) continue;
        std::string check = arg(c, "check");
        std::string line = ind;
        line += "L3 [";
        line += tr(lang, std::string("diagnose.") + verdict);
        line += "] ";
        line += check;
        line += " (";
        line += lang == Lang::zh ? arg(c, "check_zh") : arg(c, "check_en");
        line += ")";
        std::string says = machine_says(r, check, lang);
        if (std::string(verdict) == "not_checkable") {
          line += ": " + localize(lang, arg(c, "reason"));
        } else if (!says.empty()) {
          line += ": " + says;
        }
        out += block_line(line, format);
      }
    }
    for (const auto& c : r.findings) {
      if (c.id != kCaptureId || arg(c, "symptom") != s.subject) continue;
      out += block_line(ind + finding_message(c, lang), format);
    }
  }
  if (format != "html") out += "\n";
  return out;
}



}  // namespace
void report_diagnose_block_tables(Tables& t, ReportTables& r) {
  r.add_report_block(5, {Section::environment, diagnose_block});
  t.add_ui([] {
  return std::vector<UiString>{
    {"diagnose.heading", {"Diagnosis: symptom (L1) -> causes (L3), checked on {machine}", "诊断：症状（L1）-> 原因（L3），已在 {machine} 上检查"}},
    {"diagnose.this_machine", {"this machine", "本机"}},
    {"diagnose.line", {"log", "日志"}},
    {"diagnose.values", {"values:", "提取值："}},
    {"diagnose.confirmed", {"confirmed", "已确认"}},
    {"diagnose.refuted", {"refuted", "已排除"}},
    {"diagnose.not_checkable", {"not checkable here", "此处无法检查"}},
};
});
}

}  // namespace plumb
