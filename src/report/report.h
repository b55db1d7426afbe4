// Report: judged Facts ready to render, and the renderer registry (term, md, json, and any
// format a later module registers: html, prom).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/facts.h"
#include "core/finding.h"
#include "core/i18n.h"
#include "core/snapshot.h"
#include "core/version.h"

namespace plumb {

struct Report {
  Facts facts;
  std::vector<Finding> findings;
};

struct RenderOptions {
  Lang lang = Lang::en;
  bool color = false;  // terminal colours (only on a TTY, never with NO_COLOR or TERM=dumb)
  // Terminal report: -1 the verdict line only (-q), 0 a short header, problems with their evidence
  // and fix, a line per layer (default), 1 every pass and skip with the whole environment (-v).
  int verbosity = 0;
  // Terminal report: the columns to wrap to (0: none). The terminal's width on a TTY, else
  // COLUMNS when set; a pipe or a file is not wrapped.
  std::size_t width = 0;
};

struct RendererInfo {
  std::string name;
  std::function<std::string(const Report&, const RenderOptions&)> render;
  // Read as text (terminal, Markdown): values are shown as they are, so the output goes through
  // the terminal filter (core/terminal_text.h). JSON, HTML and Prometheus escape their values.
  bool read_as_text = false;
};
const RendererInfo* find_renderer(const std::string& name);
// The report in that format, safe to print whatever its values hold and wherever it goes (a
// terminal, a pipe, a file): what every command that prints a report calls.
std::string render_report(const RendererInfo& renderer, const Report& r, const RenderOptions& o);
std::vector<std::string> renderer_names();

// Lines of the report's "Environment" block ("OS" -> "Debian GNU/Linux 12"), contributed by each
// area in `order`. Labels are UI-string keys.
struct EnvLine {
  std::string label_key;
  std::string value;
};
using EnvLinesFn = std::function<std::vector<EnvLine>(const Facts&)>;
std::vector<EnvLine> environment_lines(const Facts& facts);

// Blocks an area adds to the text reports under a section (the trace breakdown table), in
// `order`. `format` is the renderer's name: "term", "md" or "html"; a block returns "" to stay out.
struct ReportBlock {
  Section section = Section::environment;
  std::function<std::string(const Report&, const RenderOptions&, const std::string& format)> render;
};

// The report's tables: renderers, environment lines and blocks, each source file adding its rows
// from its `report_<file>_tables(Tables&, ReportTables&)` (core/tables.h; listed in engine/tables.cpp).
struct ReportTables {
  std::vector<RendererInfo> renderers;
  std::multimap<int, EnvLinesFn> env_lines;
  std::multimap<int, ReportBlock> blocks;
  void add_renderer(RendererInfo r) { renderers.push_back(std::move(r)); }
  void add_env_lines(int order, EnvLinesFn fn) { env_lines.emplace(order, std::move(fn)); }
  void add_report_block(int order, ReportBlock b) { blocks.emplace(order, std::move(b)); }
};
// Built at the first call (defined in engine/tables.cpp).
const ReportTables& report_tables();
std::string report_blocks(const Report& r, Section s, const RenderOptions& o, const std::string& format);

// The files a report is about (traces, nccl-tests logs, memory dumps, HDF5 files, snapshots,
// outputs): their paths are shown in full once, in the report's own block, and by their last
// component in evidence sources (a path of several hundred characters in every line buries the
// values). Verify commands keep the path as the user gave it, so they can be pasted.
std::vector<std::string> subject_files(const Facts& facts);

// A report about this machine (check, diagnose, fleet, or a snapshot of one) rather than about
// files (trace, nccl-tests, memory, h5, diff, outdiff, watch): file reports carry no host lines
// that were never collected and no layer section that has nothing in it.
bool is_host_report(const Report& r);
// What a report's heading names: its kind ("Infrastructure health report" for a machine, "Trace
// report", "nccl-tests report", ... for a file report) and its subject (the host, or the files
// judged by their last component: three at most, then how many more).
struct ReportHeading {
  std::string title;
  std::string subject;
};
ReportHeading report_heading(const Report& r, Lang lang);
std::string shorten_paths(std::string text, const std::vector<std::string>& files);
// An evidence value as the text reports show it: whole up to kMaxShownValue bytes (a value from
// outside, such as an environment variable, can be 128 KiB), else cut on a UTF-8 boundary and
// followed by shown_value_note's words.
inline constexpr std::size_t kMaxShownValue = 480;
std::string shown_value(const std::string& value);
// " (N bytes in all; the JSON report has the whole value)" for a value shown_value cut, else "".
std::string shown_value_note(const std::string& value, Lang lang);

// Findings in report order: section, then status (fail first), then id and subject.
std::vector<const Finding*> ordered(const std::vector<Finding>& findings);
Section section_of(const Finding& f);
Layer layer_of(const Finding& f);

// The status's emoji in the Markdown report and the GPU table ("✅" for pass).
const char* status_icon(Status s);

// Counts by status.
struct Tally {
  int fail = 0, warn = 0, skip = 0, info = 0, pass = 0;
};
Tally tally(const std::vector<Finding>& findings);

// The text reports' structure, built once and only formatted by the term, md and html renderers:
// the sections in report order (environment, the four layers, baseline) with what each shows.
struct SectionView {
  Section section = Section::environment;
  bool shown = true;                     // false: a file report's section with nothing in it
  std::string blocks;                    // the areas' blocks, in the renderer's format
  std::vector<const Finding*> findings;  // in report order, skips included
  Tally tally;
  // A layer section where nothing but skips (or nothing) was judged: why, in words.
  std::optional<std::string> not_checked;
};
struct ReportView {
  std::vector<const Finding*> findings;  // every finding in report order
  std::vector<std::string> files;        // subject_files: shortened in evidence sources
  std::vector<EnvLine> environment;      // the lines the Environment section shows (file reports: the collected ones)
  Tally tally;
  std::vector<SectionView> sections;
};
ReportView build_report_view(const Report& r, const RenderOptions& o, const std::string& format);

// The funnel summary's links, shared by the Markdown and HTML reports: each failing/warning L2
// anomaly with the L3 items that can cause it, then each failing/warning L3 defect with the L2
// behaviour it explains (`observed`: at least one of them was measured in this run).
struct FunnelLink {
  std::string id;
  std::vector<std::string> related;
  bool observed = true;
  const Finding* finding = nullptr;  // the first finding with this id
};
struct Funnel {
  std::map<std::string, Status> worst;  // id -> worst status in this report
  std::vector<FunnelLink> l2_causes;
  std::vector<FunnelLink> l3_explains;
};
Funnel build_funnel(const Report& r);

// JSON document of a report (also the snapshot format, read back by core/snapshot.h).
std::string render_json_text(const Report& r, const RenderOptions& o);

}  // namespace plumb
