// The snapshot-difference block of the text reports (`plumb diff`, environment section): the two
// snapshots, then one table per group of differences with why the group matters, then the
// identical facts counted per group.
#include "analyze/snapshot_diff.h"
#include "report/report.h"
#include "report/table.h"

namespace plumb {
namespace {

std::string describe(const DiffSide& s) {
  std::string extra;
  if (!s.hostname.empty()) extra += s.hostname;
  if (!s.started_at.empty()) extra += (extra.empty() ? "" : ", ") + s.started_at;
  if (!s.tool_version.empty()) extra += (extra.empty() ? "" : ", ") + std::string("plumb ") + s.tool_version;
  return extra.empty() ? s.file : s.file + " (" + extra + ")";
}

std::string diff_block(const Report& r, const RenderOptions& o, const std::string& format) {
  const SnapshotDiff& d = r.facts.diff;
  if (!d.collected) return {};
  const Lang lang = o.lang;
  std::string out = block_heading(tr(lang, "diff.title"), format);
  out += block_line("A: " + describe(d.a), format) + block_line("B: " + describe(d.b), format);
  int same = 0;
  for (const auto& [g, n] : d.identical) same += n;
  out += block_line(d.differences.empty() ? tr(lang, "diff.none")
                                          : fill(tr(lang, "diff.summary"), {{"n", std::to_string(d.differences.size())},
                                                                            {"same", std::to_string(same)}}),
                    format);
  if (format != "html") out += "\n";
  // Markdown shows values as code: a stray backtick would end the span early.
  auto cell = [&](std::string s) {
    if (format != "md") return s;
    for (auto& c : s) {
      if (c == '`') c = '\'';
    }
    return "`" + s + "`";
  };
  for (const auto& g : diff_groups()) {
    TextTable t{{"", "A", "B"}};
    for (const auto& it : d.differences) {
      if (it.group == g) t.push_back({it.path, cell(it.a), cell(it.b)});
    }
    if (t.size() == 1) continue;
    out += block_heading(tr(lang, "diff.group." + g), format);
    out += block_line(tr(lang, "diff.why") + ": " + tr(lang, "diff.why." + g), format);
    if (format == "md") out += "\n";
    out += render_table(t, format, "    ") + (format == "html" ? "" : "\n");
  }
  std::string identical;
  for (const auto& g : diff_groups()) {
    auto it = d.identical.find(g);
    if (it != d.identical.end()) identical += (identical.empty() ? "" : ", ") + tr(lang, "diff.group." + g) + " " + std::to_string(it->second);
  }
  if (!identical.empty()) out += block_line(tr(lang, "diff.identical") + ": " + identical, format);
  if (format != "html") out += "\n";
  return out;
}


}  // namespace
void report_diff_block_tables(ReportTables& r) {
  r.add_report_block(5, {Section::environment, diff_block});
}

}  // namespace plumb
