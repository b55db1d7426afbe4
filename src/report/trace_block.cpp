// The trace breakdown in the text reports: a per-step table per rank (data layer), the HTA line
// (GPU layer), memory and top operators (framework layer) and the cross-rank table (distributed).
#include <algorithm>
#include <sstream>

#include "core/text.h"
#include "report/report.h"
#include "report/table.h"
#include "core/tables.h"

namespace plumb::trace {

namespace {


using Table = TextTable;

std::string table_dur(double us) {
  if (us >= 1e6) return fmt_num(us / 1e6, 2) + " s";
  if (us >= 1e3) return fmt_num(us / 1e3, 1) + " ms";
  return fmt_num(us, 0) + " µs";
}
std::string table_pct(double part, double whole) { return whole > 0 ? fmt_num(100.0 * part / whole, 1) + "%" : "-"; }
std::string with_pct(double part, double whole) { return table_dur(part) + " " + table_pct(part, whole); }

std::string label(const TraceRank& t) {
  if (t.rank) return "rank " + std::to_string(*t.rank);
  auto slash = t.file.find_last_of('/');
  return slash == std::string::npos ? t.file : t.file.substr(slash + 1);
}

std::string heading(const std::string& text, const std::string& format) {
  if (format == "term") return "  " + text + "\n";
  if (format == "html") return "<h4>" + html_escape(text) + "</h4>\n";
  return "#### " + text + "\n\n";
}

// One line of prose under a table: a bullet in Markdown, a paragraph in HTML.
std::string line(const std::string& text, const std::string& format, const char* term_mark = "") {
  if (format == "term") return "  " + std::string(term_mark) + text + "\n";
  if (format == "html") return "<p class=\"note\">" + html_inline(text) + "</p>\n";
  return "- " + text + "\n";
}

// The HTML report's picture of the step table: one bar per step, its length the step time
// (scaled to the longest step), the data-loader wait in the first colour; GPU traces add a thin
// bar under it with the GPU-busy share. Inline SVG, so the report stays one self-contained file.
std::string step_chart(const TraceRank& t, Lang lang) {
  constexpr std::size_t kMaxSteps = 200;
  constexpr double kLabel = 130, kWidth = 560, kRow = 24;
  if (t.steps.empty()) return {};
  const bool gpu = t.summary.copy_source == "gpu_memcpy";
  double longest = 0;
  const std::size_t n = std::min(t.steps.size(), kMaxSteps);
  for (std::size_t i = 0; i < n; ++i) longest = std::max(longest, t.steps[i].duration_us);
  if (longest <= 0) return {};
  std::ostringstream os;
  const double height = kRow * static_cast<double>(n) + 4;
  os << "<svg class=\"steps\" role=\"img\" width=\"" << kLabel + kWidth + 10
     << "\" height=\"" << height << "\" viewBox=\"0 0 " << kLabel + kWidth + 10 << " " << height << "\">\n";
  for (std::size_t i = 0; i < n; ++i) {
    const auto& st = t.steps[i];
    const double y = kRow * static_cast<double>(i) + 2;
    const double w = kWidth * st.duration_us / longest;
    const double dl = st.duration_us > 0 ? w * std::clamp(st.dataloader_us / st.duration_us, 0.0, 1.0) : 0;
    std::string tip = st.name + ": " + table_dur(st.duration_us) + ", " + tr(lang, "trace.col.dataloader") + " " + table_pct(st.dataloader_us, st.duration_us);
    os << "<g><title>" << html_escape(tip) << "</title>"
       << "<text x=\"0\" y=\"" << y + 13 << "\">" << html_escape(st.name.size() > 18 ? st.name.substr(0, 17) + "…" : st.name)
       << "</text><rect class=\"step\" x=\"" << kLabel << "\" y=\"" << y << "\" width=\"" << fmt_num(w, 1)
       << "\" height=\"14\"/><rect class=\"dl\" x=\"" << kLabel << "\" y=\"" << y << "\" width=\"" << fmt_num(dl, 1)
       << "\" height=\"14\"/>";
    if (gpu && st.gpu_busy_us) {
      const double busy = st.duration_us > 0 ? w * std::clamp(*st.gpu_busy_us / st.duration_us, 0.0, 1.0) : 0;
      os << "<rect class=\"busy\" x=\"" << kLabel << "\" y=\"" << y + 15 << "\" width=\"" << fmt_num(busy, 1)
         << "\" height=\"5\"/>";
    }
    os << "</g>\n";
  }
  os << "</svg>\n<p class=\"legend\"><span class=\"swatch dl\"></span>" << html_escape(tr(lang, "trace.col.dataloader"));
  if (gpu) os << " <span class=\"swatch busy\"></span>" << html_escape(tr(lang, "trace.col.gpu_busy"));
  os << " <span class=\"swatch step\"></span>" << html_escape(tr(lang, "trace.col.time")) << "</p>\n";
  return os.str();
}

std::string steps_block(const Report& r, const RenderOptions& o, const std::string& format) {
  const auto& tf = r.facts.trace;
  if (!tf.collected) return {};
  Lang lang = o.lang;
  std::ostringstream os;
  const std::string ind = format == "term" ? "  " : "";
  for (const auto& t : tf.traces) {
    const bool gpu = t.summary.copy_source == "gpu_memcpy";
    std::string devs;
    if (!t.devices.empty()) devs = ", " + std::to_string(t.devices.size()) + "x " + t.devices.front();
    std::string who = t.rank ? label(t) + " — " + t.file : t.file;
    os << heading(concat(tr(lang, "trace.title"), ": ", who, " (", t.format, ", ", t.accelerator, devs, ")"), format);
    std::string read = fill(tr(lang, "trace.read"), {{"mb", fmt_num(static_cast<double>(t.bytes) / 1e6, 1)},
                                                      {"events", std::to_string(t.events)},
                                                      {"ms", fmt_num(t.parse_ms, 0)}});
    if (format == "html") {
      os << "<p>" << html_escape(read) << "</p>\n";
    } else {
      os << ind << read << (format == "term" ? "\n" : "\n\n");
    }
    Table tab;
    std::vector<std::string> head{tr(lang, "trace.col.step"), tr(lang, "trace.col.time"), tr(lang, "trace.col.dataloader")};
    if (gpu) {
      for (const char* k : {"trace.col.copy", "trace.col.gpu_busy", "trace.col.gpu_idle", "trace.col.comm", "trace.col.sync",
                            "trace.col.launches"}) {
        head.push_back(tr(lang, k));
      }
    } else {
      head.push_back(tr(lang, "trace.col.cpu_copy"));
      head.push_back(tr(lang, "trace.col.optimizer"));
    }
    tab.push_back(head);
    for (const auto& st : t.steps) {
      std::string name = st.name;
      if (!st.complete) name += " " + tr(lang, "trace.partial");
      if (st.launch_bound) name += " [" + tr(lang, "trace.launch_bound_mark") + "]";
      std::vector<std::string> row{name, table_dur(st.duration_us), with_pct(st.dataloader_us, st.duration_us)};
      if (gpu) {
        row.push_back(with_pct(st.h2d_us.value_or(0), st.duration_us));
        row.push_back(with_pct(st.gpu_busy_us.value_or(0), st.duration_us));
        row.push_back(with_pct(st.gpu_idle_us.value_or(0), st.duration_us));
        row.push_back(table_dur(st.comm_us.value_or(0)));
        row.push_back(std::to_string(st.sync_calls));
        row.push_back(std::to_string(st.kernel_launches));
      } else {
        row.push_back(with_pct(st.cpu_copy_us, st.duration_us));
        row.push_back(with_pct(st.optimizer_us, st.duration_us));
      }
      tab.push_back(std::move(row));
    }
    const auto& s = t.summary;
    if (t.steps.size() > 1) {
      double total = s.step_time_total_us;
      std::vector<std::string> row{tr(lang, "trace.total") + " (" + std::to_string(s.complete_steps) + ")", table_dur(total),
                                   with_pct(s.dataloader_us, total)};
      if (gpu) {
        row.push_back(with_pct(s.h2d_us.value_or(0), total));
        row.push_back(with_pct(s.gpu_busy_us.value_or(0), total));
        row.push_back(with_pct(s.gpu_idle_us.value_or(0), total));
        row.push_back(table_dur(s.comm_us.value_or(0)));
        row.push_back(std::to_string(s.sync_calls));
        row.push_back(std::to_string(s.kernel_launches));
      } else {
        row.push_back(with_pct(s.cpu_copy_us, total));
        row.push_back(with_pct(s.optimizer_us, total));
      }
      tab.push_back(std::move(row));
    }
    if (format == "html") os << step_chart(t, lang);
    os << render_table(tab, format, ind);
    if (format == "md") os << "\n";
    if (gpu) {
      auto bw = [&](std::optional<double> g) { return g ? fmt_num(*g, 1) + " GB/s" : tr(lang, "trace.na"); };
      std::string pageable = std::to_string(s.pageable_h2d_count) + " (" + human_bytes(s.pageable_h2d_bytes) + ")";
      os << line(fill(tr(lang, "trace.memcpy"), {{"h2d_bytes", human_bytes(s.h2d_bytes)},
                                            {"h2d_bw", bw(s.h2d_gbps)},
                                            {"d2h_bytes", human_bytes(s.d2h_bytes)},
                                            {"d2h_bw", bw(s.d2h_gbps)},
                                            {"pageable", pageable}}),
                 format);
    }
    for (const auto& n : t.notes) os << line(tr(lang, "trace.note." + n), format, "* ");
    if (format != "html") os << "\n";
  }
  return os.str();
}

std::string gpu_block(const Report& r, const RenderOptions& o, const std::string& format) {
  const auto& tf = r.facts.trace;
  if (!tf.collected) return {};
  std::ostringstream os;
  for (const auto& t : tf.traces) {
    if (!t.summary.hta) continue;
    const auto& h = *t.summary.hta;
    if (!h.unavailable.empty()) {
      os << line(label(t) + ", " + tr(o.lang, "trace.hta") + ": " + fill(tr(o.lang, "trace.hta_na"), {{"why", h.unavailable}}),
                 format);
      continue;
    }
    os << line(label(t) + ", " + tr(o.lang, "trace.hta") + ": " +
                   fill(tr(o.lang, "trace.hta_line"),
               {{"span", table_dur(h.kernel_time_us)},
                {"idle", fmt_num(h.idle_pctg, 2)},
                {"compute", fmt_num(h.compute_pctg, 2)},
                {"noncompute", fmt_num(h.non_compute_pctg, 2)},
                {"overlap", h.comm_comp_overlap_pctg ? fmt_num(*h.comm_comp_overlap_pctg, 2) + " %" : tr(o.lang, "trace.na")}})
       , format);
  }
  std::string s = os.str();
  return s.empty() ? s : s + "\n";
}

std::string framework_block(const Report& r, const RenderOptions& o, const std::string& format) {
  const auto& tf = r.facts.trace;
  if (!tf.collected) return {};
  std::ostringstream os;
  const std::string ind = format == "term" ? "  " : "";
  const std::size_t top = format == "term" ? 5 : 10;
  for (const auto& t : tf.traces) {
    const auto& s = t.summary;
    if (!s.top_ops.empty()) {
      os << heading(label(t) + ": " + tr(o.lang, "trace.top_ops"), format);
      Table tab{{tr(o.lang, "trace.col.operator"), tr(o.lang, "trace.col.self"), tr(o.lang, "trace.col.total"), tr(o.lang, "trace.col.calls")}};
      for (std::size_t i = 0; i < s.top_ops.size() && i < top; ++i) {
        const auto& op = s.top_ops[i];
        std::string name = op.name.size() > 60 ? op.name.substr(0, 57) + "..." : op.name;
        tab.push_back({name, table_dur(op.self_us), table_dur(op.total_us), std::to_string(op.calls)});
      }
      os << render_table(tab, format, ind) << "\n";
    }
    if (!s.memory.empty()) {
      os << heading(label(t) + ": " + tr(o.lang, "trace.memory"), format);
      Table tab{{tr(o.lang, "trace.col.device"), tr(o.lang, "trace.col.peak_allocated"), tr(o.lang, "trace.col.peak_reserved"),
                 tr(o.lang, "trace.col.gap")}};
      for (const auto& m : s.memory) {
        tab.push_back({m.device, human_bytes(m.peak_allocated_bytes), human_bytes(m.peak_reserved_bytes),
                       human_bytes(static_cast<std::uint64_t>(std::max<std::int64_t>(0, m.gap_bytes)))});
      }
      os << render_table(tab, format, ind) << "\n";
    }
  }
  return os.str();
}

std::string distributed_block(const Report& r, const RenderOptions& o, const std::string& format) {
  const auto& tf = r.facts.trace;
  if (!tf.collected || !tf.cross_rank) return {};
  std::ostringstream os;
  os << heading(tr(o.lang, "trace.cross_rank"), format);
  const double med = tf.cross_rank->median_step_us;
  Table tab{{"rank", tr(o.lang, "trace.col.median_step"), tr(o.lang, "trace.col.vs_median")}};
  for (const auto& t : tf.traces) {
    if (!t.summary.step_time_median_us) continue;
    double m = *t.summary.step_time_median_us;
    tab.push_back({label(t), table_dur(m), med > 0 ? (m >= med ? "+" : "") + fmt_num(100.0 * (m / med - 1), 1) + "%" : "-"});
  }
  os << render_table(tab, format, format == "term" ? "  " : "") << "\n";
  return os.str();
}

// The terminal report prints blocks in section order after the environment: the step table goes
// first there; in Markdown and HTML it sits in the data layer section.

}  // namespace
void report_trace_block_tables(Tables& t, ReportTables& r) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"trace.col.operator", {"operator", "算子"}},
    {"trace.col.self", {"self", "自身耗时"}},
    {"trace.col.total", {"total", "总耗时"}},
    {"trace.col.calls", {"calls", "调用次数"}},
    {"trace.col.device", {"device", "设备"}},
    {"trace.col.peak_allocated", {"peak allocated", "已分配峰值"}},
    {"trace.col.peak_reserved", {"peak reserved", "已预留峰值"}},
    {"trace.col.gap", {"gap", "差额"}},
    {"trace.col.median_step", {"median step", "step 中位数"}},
    {"trace.col.vs_median", {"vs median", "与中位数相比"}},
};
});
  r.add_report_block(40, {Section::environment,
                                                [](const Report& r, const RenderOptions& o, const std::string& f) {
                                                  return f == "term" ? steps_block(r, o, f) : std::string();
                                                }});
  r.add_report_block(40, {Section::data,
                                                [](const Report& r, const RenderOptions& o, const std::string& f) {
                                                  return f == "term" ? std::string() : steps_block(r, o, f);
                                                }});
  r.add_report_block(40, {Section::gpu, gpu_block});
  r.add_report_block(40, {Section::framework, framework_block});
  r.add_report_block(40, {Section::distributed, distributed_block});
}

}  // namespace plumb::trace
