// Self-contained HTML health report: the Markdown report's structure (environment, the four
// layers, baseline, funnel, checks that could not run) in one file with inline CSS and SVG, no
// script and no outside resource (a Content-Security-Policy forbids loading any), so it can be
// mailed or attached to a ticket and opens the same everywhere. Void elements are self-closed
// (valid HTML5) so the document is also well-formed XML, which the tests check with pugixml.
#include <algorithm>
#include <array>
#include <set>
#include <sstream>

#include "core/catalog.h"
#include "core/phrases.h"
#include "report/counts.h"
#include "report/report.h"
#include "report/table.h"

namespace plumb {

namespace {

constexpr const char* kStyle = R"css(
:root{--fail:#c62828;--warn:#b26a00;--pass:#2e7d32;--skip:#616161;--info:#1565c0;--line:#d0d7de;--soft:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC","PingFang SC",sans-serif;color:#1f2328;background:#fff}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.25em;border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:32px}
h3{font-size:1.05em;margin:0 0 4px}h4{margin:16px 0 6px}
.meta{color:#57606a;margin:0 0 12px}
.badges span{display:inline-block;border-radius:12px;padding:2px 10px;margin-right:6px;color:#fff;font-weight:600}
.b-fail{background:var(--fail)}.b-warn{background:var(--warn)}.b-skip{background:var(--skip)}.b-pass{background:var(--pass)}.b-info{background:var(--info)}
.verdict{font-weight:600}
nav ol{columns:2;margin:8px 0}
dl.env{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px}dl.env dt{font-weight:600}dl.env dd{margin:0}
article.finding{border:1px solid var(--line);border-left:6px solid var(--skip);border-radius:6px;padding:10px 14px;margin:10px 0}
article.fail{border-left-color:var(--fail)}article.warn{border-left-color:var(--warn)}article.info{border-left-color:var(--info)}article.pass{border-left-color:var(--pass)}
.status{font-size:.8em;font-weight:700;text-transform:uppercase;border-radius:4px;padding:1px 6px;color:#fff;margin-right:6px;background:var(--skip)}
.s-fail{background:var(--fail)}.s-warn{background:var(--warn)}.s-pass{background:var(--pass)}.s-info{background:var(--info)}
.subject{color:#57606a;font-weight:400}
code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--soft);padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}
code.id{color:#57606a}
dl.detail{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:6px 0 0}dl.detail dt{color:#57606a}dl.detail dd{margin:0}
details.passed{margin:8px 0}details.passed li{margin:2px 0}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid var(--line);padding:3px 8px;text-align:right;white-space:nowrap}
thead th{background:var(--soft)}thead th:first-child{text-align:left}tbody th{text-align:left;font-weight:400}
.table-wrap{overflow-x:auto}
svg.steps text{font:11px ui-monospace,monospace;fill:#57606a}
svg.steps .step,.swatch.step{fill:#d0d7de;background:#d0d7de}svg.steps .dl,.swatch.dl{fill:#c62828;background:#c62828}
svg.steps .busy,.swatch.busy{fill:#1565c0;background:#1565c0}
.swatch{display:inline-block;width:12px;height:12px;margin:0 4px 0 10px;vertical-align:middle}
.legend,.note{color:#57606a;margin:4px 0}
footer{color:#57606a;font-size:.85em;margin-top:40px}
@media print{nav{display:none}article.finding{break-inside:avoid}}
)css";

// Everything up to <main>: the same head (CSP, style) for every page plumb writes.
std::string page_head(const std::string& title, Lang lang, const std::string& version) {
  return std::string("<!DOCTYPE html>\n<html lang=\"") + lang_code(lang) + "\">\n<head>\n<meta charset=\"utf-8\"/>\n" +
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"/>\n" +
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n" +
         "<meta name=\"generator\" content=\"plumb " + html_escape(version) + "\"/>\n<title>" + html_escape(title) +
         "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<main>\n";
}

std::string status_badge(Status s, Lang lang) {
  return std::string("<span class=\"status s-") + status_name(s) + "\">" +
         html_escape(tr(lang, std::string("status.") + status_name(s))) + "</span>";
}

std::string title_of(const std::string& id, Lang lang) {
  const CatalogEntry* e = find_entry(id);
  return e != nullptr ? e->title.in(lang) : id;
}

// `anchored`: ids that already have an anchor (a finding id can repeat, once per subject).
std::string anchor(const std::string& id, std::set<std::string>& anchored) {
  return anchored.insert(id).second ? " id=\"" + html_escape(id) + "\"" : std::string();
}

void finding_article(std::ostringstream& os, const Finding& f, Lang lang, std::set<std::string>& anchored,
                     const std::vector<std::string>& files) {
  os << "<article class=\"finding " << status_name(f.status) << "\"" << anchor(f.id, anchored) << ">\n<h3>"
     << status_badge(f.status, lang) << html_escape(title_of(f.id, lang));
  if (f.subject != "host") os << " <span class=\"subject\">(" << html_escape(f.subject) << ")</span>";
  os << "</h3>\n<p>" << html_inline(finding_message(f, lang)) << " <code class=\"id\">" << html_escape(f.id)
     << "</code></p>\n";
  std::ostringstream d;
  for (const auto& ev : f.evidence) {
    d << "<dt>" << html_escape(tr(lang, "label.evidence")) << "</dt><dd>" << html_escape(localize(lang, ev.what)) << " = <code>"
      << html_escape(shown_value(ev.value)) << "</code>" << html_escape(shown_value_note(ev.value, lang));
    if (!ev.source.empty()) d << " <span class=\"subject\">(" << html_escape(shorten_paths(localize(lang, ev.source), files)) << ")</span>";
    d << "</dd>\n";
  }
  if (!f.threshold.empty()) {
    d << "<dt>" << html_escape(tr(lang, "label.threshold")) << "</dt><dd><code>" << html_escape(localize(lang, f.threshold)) << "</code></dd>\n";
  }
  if (f.status != Status::skip) {
    std::string fix = finding_fix(f, lang);
    if (!fix.empty()) d << "<dt>" << html_escape(tr(lang, "label.fix")) << "</dt><dd>" << html_inline(fix) << "</dd>\n";
    std::string verify = finding_verify(f);
    if (!verify.empty()) {
      d << "<dt>" << html_escape(tr(lang, "label.verify")) << "</dt><dd><code>" << html_escape(verify) << "</code></dd>\n";
    }
    std::string gain = finding_gain(f, lang);
    if (!gain.empty()) d << "<dt>" << html_escape(tr(lang, "label.gain")) << "</dt><dd>" << html_inline(gain) << "</dd>\n";
  }
  if (!d.str().empty()) os << "<dl class=\"detail\">\n" << d.str() << "</dl>\n";
  os << "</article>\n";
}

// A link to a finding of this report (or the plain title when it was not judged in this run).
std::string funnel_name(const Funnel& fu, const std::string& id, Lang lang) {
  auto it = fu.worst.find(id);
  std::string t = html_escape(title_of(id, lang)) + " <code class=\"id\">" + html_escape(id) + "</code>";
  if (it == fu.worst.end()) return t;
  return status_badge(it->second, lang) + "<a href=\"#" + html_escape(id) + "\">" + t + "</a>";
}

std::string funnel_html(const Report& r, Lang lang) {
  Funnel fu = build_funnel(r);
  std::ostringstream os;
  auto names = [&](const std::vector<std::string>& ids) {
    std::string s;
    for (const auto& id : ids) s += (s.empty() ? "" : "; ") + funnel_name(fu, id, lang);
    return s;
  };
  if (fu.l2_causes.empty() && fu.l3_explains.empty()) return "<p>" + html_escape(tr(lang, "funnel.none")) + "</p>\n";
  os << "<ul>\n";
  // fill() substitutes already-escaped HTML into the escaped sentence.
  for (const auto& l : fu.l2_causes) {
    os << "<li>" << fill(html_escape(tr(lang, "funnel.l2_caused_by")), {{"l2", funnel_name(fu, l.id, lang)}, {"l3", names(l.related)}})
       << "</li>\n";
  }
  for (const auto& l : fu.l3_explains) {
    os << "<li>" << fill(html_escape(tr(lang, "funnel.l3_explains")), {{"l3", funnel_name(fu, l.id, lang)}, {"l2", names(l.related)}});
    if (!l.observed) os << " " << html_inline(tr(lang, "funnel.not_observed"));
    std::string gain = l.finding != nullptr ? finding_gain(*l.finding, lang) : "";
    if (!gain.empty()) os << "<br/>" << html_escape(tr(lang, "label.gain")) << ": " << html_inline(gain);
    os << "</li>\n";
  }
  os << "</ul>\n";
  return os.str();
}

std::string render_html(const Report& r, const RenderOptions& o) {
  const Lang lang = o.lang;
  const auto& m = r.facts.meta;
  const std::string host = m.hostname.empty() ? "?" : m.hostname;
  std::ostringstream os;
  const ReportHeading h = report_heading(r, lang);
  os << page_head(h.title + " — " + h.subject, lang, m.tool_version);
  os << "<h1>" << html_escape(h.title) << "</h1>\n<p class=\"meta\">"
     << html_escape(fill(tr(lang, "report.generated"), {{"version", m.tool_version}, {"host", host}, {"time", m.started_at}}))
     << (m.command.empty() ? "" : " · plumb " + html_escape(m.command)) << "</p>\n";
  const ReportView v = build_report_view(r, o, "html");
  const Tally& t = v.tally;
  os << "<p class=\"badges\">";
  const std::array<std::pair<Status, int>, 5> counts{{{Status::fail, t.fail}, {Status::warn, t.warn}, {Status::skip, t.skip},
                                                      {Status::pass, t.pass}, {Status::info, t.info}}};
  for (const auto& [s, n] : counts) {
    if (n == 0) continue;  // a clean report shows no "0 failed" badge
    os << "<span class=\"b-" << status_name(s) << "\">" << n << " " << html_escape(tr(lang, std::string("status.") + status_name(s)))
       << "</span>";
  }
  os << "</p>\n<p>"
     << html_escape(tally_text(t, lang))
     << html_escape(tr(lang, "summary.sep")) << "<span class=\"verdict\">"
     << html_escape(verdict_text(r, lang))
     << "</span></p>\n";

  os << "<nav><ol>";
  for (const SectionView& s : v.sections) {
    if (!s.shown) continue;
    os << "<li><a href=\"#sec-" << section_name(s.section) << "\">"
       << html_escape(tr(lang, std::string("section.") + section_name(s.section))) << "</a></li>";
  }
  os << "<li><a href=\"#sec-funnel\">" << html_escape(tr(lang, "section.funnel")) << "</a></li>";
  if (t.skip > 0) os << "<li><a href=\"#sec-skipped\">" << html_escape(tr(lang, "section.skipped")) << "</a></li>";
  os << "</ol></nav>\n";

  std::set<std::string> anchored;
  int n = 0;
  for (const SectionView& s : v.sections) {
    if (!s.shown) continue;
    os << "<section id=\"sec-" << section_name(s.section) << "\">\n<h2>" << ++n << ". "
       << html_escape(tr(lang, std::string("section.") + section_name(s.section))) << "</h2>\n";
    if (s.section == Section::environment) {
      os << "<dl class=\"env\">\n";
      for (const auto& l : v.environment) {
        os << "<dt>" << html_escape(tr(lang, l.label_key)) << "</dt><dd>" << html_escape(localize(lang, l.value)) << "</dd>\n";
      }
      os << "</dl>\n";
    }
    if (!s.blocks.empty()) os << "<div class=\"table-wrap\">\n" << s.blocks << "</div>\n";
    std::vector<const Finding*> passed, shown;
    for (const Finding* f : s.findings) {
      if (f->status == Status::pass) {
        passed.push_back(f);
      } else if (f->status != Status::skip) {
        shown.push_back(f);
      }
    }
    // Worst first: failures, then warnings, then notes, each in the section's own order.
    auto rank = [](Status st) { return st == Status::fail ? 0 : st == Status::warn ? 1 : 2; };
    std::stable_sort(shown.begin(), shown.end(), [&](const Finding* a, const Finding* b) { return rank(a->status) < rank(b->status); });
    for (const Finding* f : shown) finding_article(os, *f, lang, anchored, v.files);
    // Passed checks fold away: the page leads with what needs action.
    if (!passed.empty()) {
      os << "<details class=\"passed\"><summary>" << passed.size() << " " << html_escape(tr(lang, "status.pass"))
         << "</summary>\n<ul>\n";
      for (const Finding* f : passed) {
        os << "<li" << anchor(f->id, anchored) << ">" << status_badge(f->status, lang) << html_escape(title_of(f->id, lang));
        if (f->subject != "host") os << " <span class=\"subject\">(" << html_escape(f->subject) << ")</span>";
        os << ": " << html_inline(finding_message(*f, lang)) << " <code class=\"id\">" << html_escape(f->id) << "</code></li>\n";
      }
      os << "</ul></details>\n";
    }
    if (s.not_checked) {
      os << "<p class=\"note\">" << html_escape(fill(tr(lang, "section.not_checked"), {{"reason", *s.not_checked}})) << "</p>\n";
    }
    os << "</section>\n";
  }
  os << "<section id=\"sec-funnel\">\n<h2>" << ++n << ". " << html_escape(tr(lang, "section.funnel")) << "</h2>\n"
     << funnel_html(r, lang) << "</section>\n";
  if (t.skip > 0) {
    os << "<section id=\"sec-skipped\">\n<h2>" << ++n << ". " << html_escape(tr(lang, "section.skipped")) << "</h2>\n";
    // One folded group per reason ("libnvidia-ml.so.1 not found" once, with the checks it stopped),
    // the groups that stopped the most checks first.
    std::vector<std::pair<std::string, std::vector<const Finding*>>> groups;
    for (const Finding* f : v.findings) {
      if (f->status != Status::skip) continue;
      auto it = f->args.find("reason");
      const std::string reason = localize(lang, it != f->args.end() ? it->second : finding_message(*f, lang));
      auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == reason; });
      if (g == groups.end()) {
        groups.emplace_back(reason, std::vector<const Finding*>{f});
      } else {
        g->second.push_back(f);
      }
    }
    std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
    for (const auto& [reason, fs] : groups) {
      os << "<details class=\"skipped\"><summary>" << status_badge(Status::skip, lang) << fs.size() << " · "
         << html_escape(shorten_paths(reason, v.files)) << "</summary>\n<ul>\n";
      for (const Finding* f : fs) {
        os << "<li" << anchor(f->id, anchored) << ">" << html_escape(title_of(f->id, lang));
        if (f->subject != "host") os << " <span class=\"subject\">(" << html_escape(f->subject) << ")</span>";
        os << " <code class=\"id\">" << html_escape(f->id) << "</code></li>\n";
      }
      os << "</ul></details>\n";
    }
    os << "</section>\n";
  }
  os << "<footer>plumb " << html_escape(m.tool_version) << "</footer>\n</main>\n</body>\n</html>\n";
  return os.str();
}


}  // namespace

std::string render_html_page(const std::string& title, const std::string& body, Lang lang) {
  return page_head(title, lang, plumb_version()) + "<h1>" + html_escape(title) + "</h1>\n<div class=\"table-wrap\">\n" + body +
         "</div>\n<footer>plumb " + html_escape(plumb_version()) + "</footer>\n</main>\n</body>\n</html>\n";
}

void report_render_html_tables(ReportTables& r) {
  r.add_renderer({"html", render_html});
}

}  // namespace plumb
