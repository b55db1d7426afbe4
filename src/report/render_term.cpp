// Terminal report, made to be read in five seconds (like nvidia-smi or `brew doctor`): a short
// header, failures and warnings with their evidence, fix and verify command, notes in one line
// each, one line per layer with identical skip reasons grouped, then the verdict. -v adds every
// pass and skip and the whole environment; -q prints the verdict line only. Colour only on a TTY,
// never with NO_COLOR or TERM=dumb.
#include <map>
#include <sstream>

#include "core/catalog.h"
#include "core/i18n.h"
#include "core/phrases.h"
#include "core/text.h"
#include "report/counts.h"
#include "report/report.h"
#include "core/tables.h"

namespace plumb {

namespace {

struct Paint {
  bool on;
  [[nodiscard]] std::string operator()(const char* code, const std::string& s) const {
    return on ? std::string("\033[") + code + "m" + s + "\033[0m" : s;
  }
};

const char* colour(Status s) {
  switch (s) {
    case Status::fail: return "1;31";
    case Status::warn: return "33";
    case Status::skip: return "35";
    case Status::info: return "36";
    case Status::pass: return "32";
  }
  return "0";
}

std::string tag(Status s, Lang lang, const Paint& p) {
  std::string t = tr(lang, std::string("status.") + status_name(s));
  while (t.size() < 4) t += ' ';
  return p(colour(s), "[" + t + "]");
}

bool not_available(const std::string& v) { return v.rfind("n/a", 0) == 0; }

// At most six lines: OS and kernel, CPU and memory, GPUs, driver and CUDA, Python and framework.
std::vector<std::string> short_header(const Facts& facts, Lang lang) {
  std::map<std::string, std::string> v;
  for (const auto& l : environment_lines(facts)) v[l.label_key] = localize(lang, l.value);
  const std::vector<std::vector<std::string>> rows{{"env.os", "env.kernel"},
                                                   {"env.cpu_model", "env.cpu_topology", "env.memory"},
                                                   {"env.gpus"},
                                                   {"env.nvidia_driver", "env.cuda_driver", "env.cuda_runtime"},
                                                   {"env.python", "env.pytorch"}};
  std::vector<std::string> out;
  for (const auto& row : rows) {
    std::string line;
    for (const auto& key : row) {
      auto it = v.find(key);
      if (it == v.end() || it->second.empty() || not_available(it->second)) continue;
      line += (line.empty() ? "" : " · ") + tr(lang, key) + ": " + it->second;
    }
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

void finding_detail(std::ostringstream& os, const Finding& f, Lang lang, const Paint& p, const std::vector<std::string>& files) {
  for (const auto& ev : f.evidence) {
    os << "       " << tr(lang, "label.evidence") << ": " << localize(lang, ev.what) << " = " << shown_value(ev.value)
       << shown_value_note(ev.value, lang);
    if (!ev.source.empty()) os << p("2", "  (" + shorten_paths(localize(lang, ev.source), files) + ")");
    os << "\n";
  }
  if (!f.threshold.empty()) os << "       " << tr(lang, "label.threshold") << ": " << localize(lang, f.threshold) << "\n";
  std::string fix = finding_fix(f, lang);
  if (!fix.empty()) os << "       " << tr(lang, "label.fix") << ": " << fix << "\n";
  std::string verify = finding_verify(f);
  if (!verify.empty()) os << "       " << tr(lang, "label.verify") << ": " << p("1", verify) << "\n";
  std::string gain = finding_gain(f, lang);
  if (!gain.empty()) os << "       " << tr(lang, "label.gain") << ": " << gain << "\n";
}

std::string verdict_line(const Report& r, Lang lang, const Paint& p) {
  Tally t = tally(r.findings);
  return p("1", tally_text(t, lang, false)) + tr(lang, "summary.sep") + verdict_text(r, lang) + "\n";
}

std::string render_term(const Report& r, const RenderOptions& o) {
  Lang lang = o.lang;
  Paint p{o.color};
  if (o.verbosity < 0) return verdict_line(r, lang, p);
  const bool verbose = o.verbosity > 0;
  const ReportView v = build_report_view(r, o, "term");
  std::ostringstream os;
  const auto& m = r.facts.meta;
  const ReportHeading h = report_heading(r, lang);
  os << p("1", "plumb " + h.title) << " — " << h.subject << "\n";
  if (verbose) {
    for (const auto& l : v.environment) {
      if (l.value.find("(not collected)") != std::string::npos) continue;  // a report about a file, not a host
      os << "  " << tr(lang, l.label_key) << ": " << localize(lang, l.value) << "\n";
    }
  } else {
    for (const auto& l : short_header(r.facts, lang)) os << "  " << l << "\n";
  }
  os << "\n";
  for (const SectionView& s : v.sections) os << s.blocks;
  // Failures and warnings first, with everything needed to act on them; notes in one line each.
  bool any_listed = false;
  // A host check lists dozens of passes; a report about one subject (a trace, a log, a recording)
  // has a few findings that are its content, so its passes stay, in one line each.
  const bool host_report = m.command.empty() || m.command == "check" || m.command == "agent";
  for (Status want : {Status::fail, Status::warn, Status::info, Status::pass, Status::skip}) {
    if (!verbose && want == Status::skip) continue;
    if (!verbose && want == Status::pass && host_report) continue;
    for (const Finding* f : v.findings) {
      if (f->status != want) continue;
      const CatalogEntry* e = find_entry(f->id);
      os << tag(f->status, lang, p) << " " << (e != nullptr ? e->title.in(lang) : f->id);
      if (f->subject != "host") os << " (" << f->subject << ")";
      os << p("2", "  " + f->id) << "\n       " << finding_message(*f, lang) << "\n";
      if (want == Status::fail || want == Status::warn) finding_detail(os, *f, lang, p, v.files);
      any_listed = true;
    }
  }
  if (any_listed) os << "\n";
  // One line per layer that ran: its counts, and the most common reason a check could not run.
  for (const SectionView& s : v.sections) {
    if (s.findings.empty()) continue;
    std::map<std::string, int> reasons;
    for (const Finding* f : s.findings) {
      if (f->status != Status::skip) continue;
      auto it = f->args.find("reason");
      if (it != f->args.end()) ++reasons[it->second];
    }
    os << "  " << p("1", tr(lang, std::string("section.") + section_name(s.section))) << ": " << tally_text(s.tally, lang, true);
    if (!verbose && !reasons.empty()) {
      auto top = std::max_element(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
      os << p("2", " — " + fill(tr(lang, top->second > 1 ? "layer.skip_reason_many" : "layer.skip_reason"),
                                {{"reason", localize(lang, top->first)}, {"n", std::to_string(top->second)}}));
    }
    os << "\n";
  }
  if (!verbose && host_report) os << p("2", "  " + tr(lang, "layer.more")) << "\n";
  os << "\n" << verdict_line(r, lang, p);
  return os.str();
}



}  // namespace
void report_render_term_tables(Tables& t, ReportTables& r) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"layer.skip_reason", {"not checked: {reason}", "未检查：{reason}"}},
    {"layer.skip_reason_many", {"{n} not checked: {reason}", "{n} 项未检查：{reason}"}},
    {"layer.more", {"-v lists every check that passed or could not run", "加 -v 列出所有通过或未检查的项"}},
};
});
  r.add_renderer({"term", render_term, true});
}

}  // namespace plumb
