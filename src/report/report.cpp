// Renderer and environment-line registries, report ordering and tallies.
#include "report/report.h"
#include "report/table.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/catalog.h"
#include "core/phrases.h"
#include "core/terminal_text.h"
#include "core/text.h"

namespace plumb {

namespace {
const std::vector<RendererInfo>& renderer_table() { return report_tables().renderers; }
const std::multimap<int, EnvLinesFn>& env_table() { return report_tables().env_lines; }
const std::multimap<int, ReportBlock>& block_table() { return report_tables().blocks; }
}  // namespace

const RendererInfo* find_renderer(const std::string& name) {
  for (const auto& r : renderer_table()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::string render_report(const RendererInfo& renderer, const Report& r, const RenderOptions& o) {
  std::string text = renderer.render(r, o);
  if (!renderer.read_as_text) return text;
  text = terminal_text(text, o.color);
  if (renderer.name != "term" || o.width == 0) return text;
  // A Verify line is a command to paste: it stays on one line.
  return wrap_to_width(text, o.width, {tr(o.lang, "label.verify") + ":"});
}

std::vector<std::string> renderer_names() {
  std::vector<std::string> n;
  for (const auto& r : renderer_table()) n.push_back(r.name);
  std::sort(n.begin(), n.end());
  return n;
}

std::vector<EnvLine> environment_lines(const Facts& facts) {
  std::vector<EnvLine> out;
  for (const auto& [order, fn] : env_table()) {
    for (auto& l : fn(facts)) out.push_back(std::move(l));
  }
  return out;
}


namespace {
// Every file a report judges, in the order of its facts (traces, nccl-tests logs, memory dumps,
// HDF5 files, snapshots, outputs); empty names included.
std::vector<std::string> judged_files(const Facts& facts) {
  std::vector<std::string> out;
  for (const auto& t : facts.trace.traces) out.push_back(t.file);
  for (const auto& n : facts.comm.nccl_tests) out.push_back(n.origin);
  for (const auto& m : facts.allocator.files) out.push_back(m.file);
  for (const auto& h : facts.h5.files) out.push_back(h.file);
  for (const auto* f : {&facts.diff.a.file, &facts.diff.b.file, &facts.outdiff.file_a, &facts.outdiff.file_b}) out.push_back(*f);
  return out;
}
}  // namespace

std::vector<std::string> subject_files(const Facts& facts) {
  std::vector<std::string> out;
  // Only paths with a folder part, and each once.
  for (const auto& f : judged_files(facts)) {
    if (f.find('/') != std::string::npos && std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  // Two files with one name stay whole (rank0.json from two folders).
  std::vector<std::string> names;
  names.reserve(out.size());
  for (const auto& f : out) names.push_back(base_name(f));
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::count(names.begin(), names.end(), names[i]) == 1) kept.push_back(out[i]);
  }
  out = std::move(kept);
  // Longest first, so a path that contains another is replaced whole.
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return out;
}

bool is_host_report(const Report& r) {
  const std::string& c = r.facts.meta.command;
  return c.empty() || c == "check" || c == "agent" || c == "diagnose" || c == "fleet";
}

ReportHeading report_heading(const Report& r, Lang lang) {
  const RunMeta& m = r.facts.meta;
  const std::string host = m.hostname.empty() ? "?" : m.hostname;
  if (is_host_report(r)) return {tr(lang, "report.title"), host};
  std::string kind = m.command.substr(0, m.command.find(' '));  // "bench membw" -> "bench"
  std::replace(kind.begin(), kind.end(), '-', '_');
  const std::string key = "report.title." + kind;
  std::string title = tr(lang, key);
  if (title == key) title = tr(lang, "report.title.other");
  std::vector<std::string> files;
  for (const auto& f : judged_files(r.facts)) {
    if (!f.empty() && std::find(files.begin(), files.end(), base_name(f)) == files.end()) files.push_back(base_name(f));
  }
  if (files.empty()) return {title, host};
  std::string subject;
  for (std::size_t i = 0; i < files.size() && i < 3; ++i) subject += (i > 0 ? ", " : "") + files[i];
  if (files.size() > 3) subject += " " + fill(tr(lang, "report.title.more"), {{"n", std::to_string(files.size() - 3)}});
  return {title, subject};
}

namespace {

// The environment lines a report shows: in a file report, only those that were collected.
std::vector<EnvLine> shown_environment_lines(const Report& r) {
  auto lines = environment_lines(r.facts);
  if (!is_host_report(r)) {
    std::erase_if(lines, [](const EnvLine& l) { return l.value.find("(not collected)") != std::string::npos; });
  }
  return lines;
}

void count_status(Tally& t, Status s) {
  switch (s) {
    case Status::fail: ++t.fail; break;
    case Status::warn: ++t.warn; break;
    case Status::skip: ++t.skip; break;
    case Status::info: ++t.info; break;
    case Status::pass: ++t.pass; break;
  }
}

}  // namespace

std::string shown_value(const std::string& value) {
  return value.size() <= kMaxShownValue ? value : cut_utf8(value, kMaxShownValue);
}

std::string shown_value_note(const std::string& value, Lang lang) {
  if (value.size() <= kMaxShownValue) return {};
  return " " + fill(tr(lang, "evidence.cut"), {{"bytes", std::to_string(value.size())}});
}

std::string shorten_paths(std::string text, const std::vector<std::string>& files) {
  for (const auto& f : files) {
    std::string shortened = base_name(f);
    for (auto p = text.find(f); p != std::string::npos; p = text.find(f, p + shortened.size())) text.replace(p, f.size(), shortened);
  }
  return text;
}

std::string report_blocks(const Report& r, Section s, const RenderOptions& o, const std::string& format) {
  std::string out;
  for (const auto& [order, b] : block_table()) {
    if (b.section == s) out += b.render(r, o, format);
  }
  return out;
}

Section section_of(const Finding& f) {
  const auto* e = find_entry(f.id);
  if (e == nullptr) return Section::environment;
  if (!e->section_from_arg.empty()) {
    auto it = f.args.find(e->section_from_arg);
    const CatalogEntry* named = it == f.args.end() ? nullptr : find_entry(it->second);
    if (named != nullptr && named->section_from_arg.empty()) return named->section;
  }
  return e->section;
}

Layer layer_of(const Finding& f) {
  const auto* e = find_entry(f.id);
  return e == nullptr ? Layer::L3 : e->layer;
}

std::vector<const Finding*> ordered(const std::vector<Finding>& findings) {
  // Each finding's section looked up once (a catalogue search by id), and the keys compared in
  // place: the sort made a copy of two strings and two searches per comparison before.
  struct Keyed {
    Section section;
    const Finding* f;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(findings.size());
  for (const auto& f : findings) keyed.push_back({section_of(f), &f});
  std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    return std::tie(a.section, a.f->status, a.f->id, a.f->subject) < std::tie(b.section, b.f->status, b.f->id, b.f->subject);
  });
  std::vector<const Finding*> v;
  v.reserve(keyed.size());
  for (const auto& k : keyed) v.push_back(k.f);
  return v;
}

Tally tally(const std::vector<Finding>& findings) {
  Tally t;
  for (const auto& f : findings) count_status(t, f.status);
  return t;
}

ReportView build_report_view(const Report& r, const RenderOptions& o, const std::string& format) {
  ReportView v;
  v.findings = ordered(r.findings);
  v.files = subject_files(r.facts);
  v.environment = shown_environment_lines(r);
  v.tally = tally(r.findings);
  for (Section s : {Section::environment, Section::gpu, Section::framework, Section::data, Section::distributed, Section::baseline}) {
    SectionView& sv = v.sections.emplace_back();
    sv.section = s;
    sv.blocks = report_blocks(r, s, o, format);
    const Finding* first_skip = nullptr;
    bool judged = false;
    for (const Finding* f : v.findings) {
      if (section_of(*f) != s) continue;
      sv.findings.push_back(f);
      count_status(sv.tally, f->status);
      judged |= f->status != Status::skip;
      if (f->status == Status::skip && first_skip == nullptr) first_skip = f;
    }
    // A file report leaves out a section with neither a block nor a finding.
    sv.shown = is_host_report(r) || !sv.blocks.empty() || !sv.findings.empty() ||
               (s == Section::environment && !v.environment.empty());
    if (judged || s == Section::environment) continue;
    if (first_skip == nullptr) {
      sv.not_checked = tr(o.lang, "section.no_rules");
    } else {
      auto it = first_skip->args.find("reason");
      sv.not_checked = it != first_skip->args.end() ? localize(o.lang, it->second) : "?";
    }
  }
  return v;
}

}  // namespace plumb

namespace plumb {

Funnel build_funnel(const Report& r) {
  Funnel out;
  std::map<std::string, const Finding*> first;
  for (const auto& f : r.findings) {
    auto it = out.worst.find(f.id);
    if (it == out.worst.end() || f.status < it->second) out.worst[f.id] = f.status;
    first.emplace(f.id, &f);
  }
  auto bad = [&](const std::string& id) {
    auto it = out.worst.find(id);
    return it != out.worst.end() && (it->second == Status::fail || it->second == Status::warn);
  };
  for (const auto& entry : out.worst) {
    const std::string& id = entry.first;
    const CatalogEntry* e = find_entry(id);
    if (e == nullptr || !bad(id)) continue;
    if (e->layer == Layer::L2) out.l2_causes.push_back({id, l3_causes_of(id), true, first[id]});
  }
  for (const auto& entry : out.worst) {
    const std::string& id = entry.first;
    const CatalogEntry* e = find_entry(id);
    if (e == nullptr || e->layer != Layer::L3 || !bad(id) || e->explains.empty()) continue;
    FunnelLink l{id, e->explains, false, first[id]};
    for (const auto& l2 : e->explains) l.observed |= out.worst.count(l2) > 0;
    out.l3_explains.push_back(std::move(l));
  }
  return out;
}

}  // namespace plumb
