// Markdown health report, in the order of the health report template: environment, the four
// layers, baseline comparison, then the funnel summary and the checks that could not run.
#include <sstream>

#include "core/catalog.h"
#include "core/phrases.h"
#include "report/counts.h"
#include "report/report.h"

namespace plumb {

const char* status_icon(Status s) {
  switch (s) {
    case Status::pass: return "✅";
    case Status::warn: return "⚠️";
    case Status::fail: return "❌";
    case Status::skip: return "⏭️";
    case Status::info: return "ℹ️";
  }
  return "";
}

namespace {

// Markdown-safe inline code: backticks inside values would break the span.
std::string code(const std::string& s) {
  std::string t = s;
  for (auto& c : t) {
    if (c == '`') c = '\'';
  }
  return "`" + t + "`";
}

void finding_block(std::ostringstream& os, const Finding& f, Lang lang, const std::vector<std::string>& files) {
  const CatalogEntry* e = find_entry(f.id);
  std::string title = e != nullptr ? e->title.in(lang) : f.id;
  os << "- " << status_icon(f.status) << " **" << title << "**";
  if (f.subject != "host") os << " (" << f.subject << ")";
  os << ": " << finding_message(f, lang) << " " << code(f.id) << "\n";
  if (f.status == Status::pass || f.status == Status::skip) return;
  for (const auto& ev : f.evidence) {
    os << "  - " << tr(lang, "label.evidence") << ": " << localize(lang, ev.what) << " = " << code(shown_value(ev.value))
       << shown_value_note(ev.value, lang);
    if (!ev.source.empty()) os << " (" << shorten_paths(localize(lang, ev.source), files) << ")";
    os << "\n";
  }
  if (!f.threshold.empty()) os << "  - " << tr(lang, "label.threshold") << ": " << code(localize(lang, f.threshold)) << "\n";
  std::string fix = finding_fix(f, lang);
  if (!fix.empty()) os << "  - " << tr(lang, "label.fix") << ": " << fix << "\n";
  std::string verify = finding_verify(f);
  if (!verify.empty()) os << "  - " << tr(lang, "label.verify") << ": " << code(verify) << "\n";
  std::string gain = finding_gain(f, lang);
  if (!gain.empty()) os << "  - " << tr(lang, "label.gain") << ": " << gain << "\n";
}

std::string funnel(const Report& r, Lang lang) {
  std::ostringstream os;
  Funnel fu = build_funnel(r);
  auto name = [&](const std::string& id) {
    const CatalogEntry* e = find_entry(id);
    std::string n = e != nullptr ? e->title.in(lang) : id;
    auto it = fu.worst.find(id);
    if (it != fu.worst.end()) n = std::string(status_icon(it->second)) + " " + n;
    return n + " " + code(id);
  };
  auto names = [&](const std::vector<std::string>& ids) {
    std::string s;
    for (const auto& id : ids) s += (s.empty() ? "" : "; ") + name(id);
    return s;
  };
  // L2 anomalies first: each points at the L3 items to check.
  for (const auto& l : fu.l2_causes) {
    os << "- " << fill(tr(lang, "funnel.l2_caused_by"), {{"l2", name(l.id)}, {"l3", names(l.related)}}) << "\n";
  }
  // Then each L3 defect with the L2 behaviour it explains.
  for (const auto& l : fu.l3_explains) {
    os << "- " << fill(tr(lang, "funnel.l3_explains"), {{"l3", name(l.id)}, {"l2", names(l.related)}});
    if (!l.observed) os << " " << tr(lang, "funnel.not_observed");
    os << "\n";
    std::string gain = l.finding != nullptr ? finding_gain(*l.finding, lang) : "";
    if (!gain.empty()) os << "  - " << tr(lang, "label.gain") << ": " << gain << "\n";
  }
  if (fu.l2_causes.empty() && fu.l3_explains.empty()) os << tr(lang, "funnel.none") << "\n";
  return os.str();
}

std::string render_md(const Report& r, const RenderOptions& o) {
  Lang lang = o.lang;
  std::ostringstream os;
  const auto& m = r.facts.meta;
  const ReportHeading h = report_heading(r, lang);
  os << "## " << h.title << " (" << (is_host_report(r) ? h.subject : code(h.subject)) << ", " << m.started_at.substr(0, 10)
     << ")\n\n";
  const ReportView v = build_report_view(r, o, "md");
  const Tally& t = v.tally;
  os << tally_text(t, lang)
     << tr(lang, "summary.sep")
     << verdict_text(r, lang)
     << "\n\n";
  int n = 0;
  for (const SectionView& s : v.sections) {
    if (!s.shown) continue;
    os << "### " << ++n << ". " << tr(lang, std::string("section.") + section_name(s.section)) << "\n\n";
    if (s.section == Section::environment) {
      for (const auto& l : v.environment) os << "- " << tr(lang, l.label_key) << ": " << localize(lang, l.value) << "\n";
      os << "\n";
    }
    os << s.blocks;
    for (const Finding* f : s.findings) {
      if (f->status != Status::skip) finding_block(os, *f, lang, v.files);
    }
    if (s.not_checked) os << "- " << fill(tr(lang, "section.not_checked"), {{"reason", *s.not_checked}}) << "\n";
    os << "\n";
  }
  os << "### " << ++n << ". " << tr(lang, "section.funnel") << "\n\n" << funnel(r, lang) << "\n";
  if (t.skip > 0) {
    os << "### " << ++n << ". " << tr(lang, "section.skipped") << "\n\n";
    for (const Finding* f : v.findings) {
      if (f->status == Status::skip) finding_block(os, *f, lang, v.files);
    }
    os << "\n";
  }
  return os.str();
}


}  // namespace
void report_render_md_tables(ReportTables& r) {
  r.add_renderer({"md", render_md, true});
}

}  // namespace plumb
