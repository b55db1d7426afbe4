// Terminal report: one summary line per layer, then failures and warnings with their evidence,
// fix and verify command, then passes and skipped checks. Colour only when asked (TTY, no NO_COLOR).
#include <array>
#include <sstream>

#include "core/catalog.h"
#include "report/report.h"

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

std::string render_term(const Report& r, const RenderOptions& o) {
  Lang lang = o.lang;
  Paint p{o.color};
  std::ostringstream os;
  const auto& m = r.facts.meta;
  os << p("1", "plumb " + tr(lang, "report.title")) << " — " << (m.hostname.empty() ? "?" : m.hostname) << "\n";
  for (const auto& l : environment_lines(r.facts)) os << "  " << tr(lang, l.label_key) << ": " << l.value << "\n";
  os << "\n";
  auto list = ordered(r.findings);
  constexpr std::array<Section, 6> kSections{Section::environment, Section::gpu,  Section::framework,
                                             Section::data,        Section::distributed, Section::baseline};
  for (Section s : kSections) os << report_blocks(r, s, o, "term");
  for (Section s : kSections) {
    std::vector<Finding> in;
    for (const Finding* f : list) {
      if (section_of(*f) == s) in.push_back(*f);
    }
    Tally t = tally(in);
    std::string name = tr(lang, std::string("section.") + section_name(s));
    os << "  " << p("1", name) << ": ";
    if (in.empty()) {
      os << tr(lang, "section.no_rules") << "\n";
      continue;
    }
    os << fill(tr(lang, "summary.line"), {{"fail", std::to_string(t.fail)},
                                          {"warn", std::to_string(t.warn)},
                                          {"skip", std::to_string(t.skip)},
                                          {"pass", std::to_string(t.pass)},
                                          {"info", std::to_string(t.info)}})
       << "\n";
  }
  os << "\n";
  // Failures and warnings first, with everything needed to act on them.
  for (Status want : {Status::fail, Status::warn, Status::info, Status::pass, Status::skip}) {
    for (const Finding* f : list) {
      if (f->status != want) continue;
      const CatalogEntry* e = find_entry(f->id);
      os << tag(f->status, lang, p) << " " << (e != nullptr ? e->title.in(lang) : f->id);
      if (f->subject != "host") os << " (" << f->subject << ")";
      os << p("2", "  " + f->id) << "\n       " << finding_message(*f, lang) << "\n";
      if (want == Status::fail || want == Status::warn) {
        for (const auto& ev : f->evidence) {
          os << "       " << tr(lang, "label.evidence") << ": " << ev.what << " = " << ev.value;
          if (!ev.source.empty()) os << p("2", "  (" + ev.source + ")");
          os << "\n";
        }
        if (!f->threshold.empty()) os << "       " << tr(lang, "label.threshold") << ": " << f->threshold << "\n";
        std::string fix = finding_fix(*f, lang);
        if (!fix.empty()) os << "       " << tr(lang, "label.fix") << ": " << fix << "\n";
        std::string verify = finding_verify(*f);
        if (!verify.empty()) os << "       " << tr(lang, "label.verify") << ": " << p("1", verify) << "\n";
        std::string gain = finding_gain(*f, lang);
        if (!gain.empty()) os << "       " << tr(lang, "label.gain") << ": " << gain << "\n";
      }
    }
  }
  Tally t = tally(r.findings);
  os << "\n"
     << p("1", fill(tr(lang, "summary.line"), {{"fail", std::to_string(t.fail)},
                                               {"warn", std::to_string(t.warn)},
                                               {"skip", std::to_string(t.skip)},
                                               {"pass", std::to_string(t.pass)},
                                               {"info", std::to_string(t.info)}}))
     << tr(lang, "summary.sep")
     << tr(lang, t.fail > 0 ? "summary.verdict_fail" : t.warn > 0 ? "summary.verdict_warn" : "summary.verdict_ok")
     << "\n";
  return os.str();
}

const bool kRegistered = register_renderer({"term", render_term});

}  // namespace
}  // namespace plumb
