// The trace breakdown in the text reports: a per-step table per rank (data layer), the HTA line
// (GPU layer), memory and top operators (framework layer) and the cross-rank table (distributed).
#include <sstream>

#include "core/text.h"
#include "report/report.h"

namespace plumb::trace {

namespace {

using Table = std::vector<std::vector<std::string>>;

std::string dur(double us) {
  if (us >= 1e6) return fmt_num(us / 1e6, 2) + " s";
  if (us >= 1e3) return fmt_num(us / 1e3, 1) + " ms";
  return fmt_num(us, 0) + " µs";
}
std::string pct(double part, double whole) { return whole > 0 ? fmt_num(100.0 * part / whole, 1) + "%" : "-"; }
std::string with_pct(double part, double whole) { return dur(part) + " " + pct(part, whole); }

// Display width of UTF-8 text (µ and CJK count as 1 and 2 columns).
std::size_t width(const std::string& s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    w += len == 3 ? 2 : 1;
    i += len;
  }
  return w;
}

std::string render_table(const Table& t, const std::string& format, const std::string& indent) {
  std::ostringstream os;
  if (t.empty()) return {};
  if (format != "term") {
    for (std::size_t r = 0; r < t.size(); ++r) {
      os << "|";
      for (const auto& c : t[r]) os << " " << c << " |";
      os << "\n";
      if (r == 0) {
        os << "|";
        for (std::size_t c = 0; c < t[0].size(); ++c) os << (c == 0 ? "---|" : "---:|");
        os << "\n";
      }
    }
    return os.str();
  }
  std::vector<std::size_t> w(t[0].size(), 0);
  for (const auto& row : t) {
    for (std::size_t c = 0; c < row.size() && c < w.size(); ++c) w[c] = std::max(w[c], width(row[c]));
  }
  for (const auto& row : t) {
    os << indent;
    for (std::size_t c = 0; c < row.size() && c < w.size(); ++c) {
      std::string pad(w[c] - width(row[c]), ' ');
      os << (c == 0 ? row[c] + pad : "  " + pad + row[c]);
    }
    os << "\n";
  }
  return os.str();
}

std::string label(const TraceRank& t) {
  if (t.rank) return "rank " + std::to_string(*t.rank);
  auto slash = t.file.find_last_of('/');
  return slash == std::string::npos ? t.file : t.file.substr(slash + 1);
}

std::string heading(const std::string& text, const std::string& format) {
  if (format == "term") return "  " + text + "\n";
  return "#### " + text + "\n\n";
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
    os << heading(tr(lang, "trace.title") + ": " + who + " (" + t.format + ", " + t.accelerator + devs + ")", format);
    os << ind << fill(tr(lang, "trace.read"), {{"mb", fmt_num(static_cast<double>(t.bytes) / 1e6, 1)},
                                               {"events", std::to_string(t.events)},
                                               {"ms", fmt_num(t.parse_ms, 0)}})
       << (format == "term" ? "\n" : "\n\n");
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
      std::vector<std::string> row{name, dur(st.duration_us), with_pct(st.dataloader_us, st.duration_us)};
      if (gpu) {
        row.push_back(with_pct(st.h2d_us.value_or(0), st.duration_us));
        row.push_back(with_pct(st.gpu_busy_us.value_or(0), st.duration_us));
        row.push_back(with_pct(st.gpu_idle_us.value_or(0), st.duration_us));
        row.push_back(dur(st.comm_us.value_or(0)));
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
      std::vector<std::string> row{tr(lang, "trace.total") + " (" + std::to_string(s.complete_steps) + ")", dur(total),
                                   with_pct(s.dataloader_us, total)};
      if (gpu) {
        row.push_back(with_pct(s.h2d_us.value_or(0), total));
        row.push_back(with_pct(s.gpu_busy_us.value_or(0), total));
        row.push_back(with_pct(s.gpu_idle_us.value_or(0), total));
        row.push_back(dur(s.comm_us.value_or(0)));
        row.push_back(std::to_string(s.sync_calls));
        row.push_back(std::to_string(s.kernel_launches));
      } else {
        row.push_back(with_pct(s.cpu_copy_us, total));
        row.push_back(with_pct(s.optimizer_us, total));
      }
      tab.push_back(std::move(row));
    }
    os << render_table(tab, format, ind);
    if (format != "term") os << "\n";
    if (gpu) {
      auto bw = [&](std::optional<double> g) { return g ? fmt_num(*g, 1) + " GB/s" : tr(lang, "trace.na"); };
      std::string pageable = std::to_string(s.pageable_h2d_count) + " (" + human_bytes(s.pageable_h2d_bytes) + ")";
      os << ind << (format == "term" ? "" : "- ")
         << fill(tr(lang, "trace.memcpy"), {{"h2d_bytes", human_bytes(s.h2d_bytes)},
                                            {"h2d_bw", bw(s.h2d_gbps)},
                                            {"d2h_bytes", human_bytes(s.d2h_bytes)},
                                            {"d2h_bw", bw(s.d2h_gbps)},
                                            {"pageable", pageable}})
         << "\n";
    }
    for (const auto& n : t.notes) os << ind << (format == "term" ? "* " : "- ") << tr(lang, "trace.note." + n) << "\n";
    os << "\n";
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
    os << (format == "term" ? "  " : "- ") << label(t) << ", " << tr(o.lang, "trace.hta") << ": "
       << fill(tr(o.lang, "trace.hta_line"),
               {{"span", dur(h.kernel_time_us)},
                {"idle", fmt_num(h.idle_pctg, 2)},
                {"compute", fmt_num(h.compute_pctg, 2)},
                {"noncompute", fmt_num(h.non_compute_pctg, 2)},
                {"overlap", h.comm_comp_overlap_pctg ? fmt_num(*h.comm_comp_overlap_pctg, 2) + " %" : tr(o.lang, "trace.na")}})
       << "\n";
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
      Table tab{{"operator", "self", "total", "calls"}};
      for (std::size_t i = 0; i < s.top_ops.size() && i < top; ++i) {
        const auto& op = s.top_ops[i];
        std::string name = op.name.size() > 60 ? op.name.substr(0, 57) + "..." : op.name;
        if (format != "term") {
          for (auto& c : name) {
            if (c == '|') c = '/';
          }
        }
        tab.push_back({name, dur(op.self_us), dur(op.total_us), std::to_string(op.calls)});
      }
      os << render_table(tab, format, ind) << "\n";
    }
    if (!s.memory.empty()) {
      os << heading(label(t) + ": " + tr(o.lang, "trace.memory"), format);
      Table tab{{"device", "peak allocated", "peak reserved", "gap"}};
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
  Table tab{{"rank", "median step", "vs median"}};
  for (const auto& t : tf.traces) {
    if (!t.summary.step_time_median_us) continue;
    double m = *t.summary.step_time_median_us;
    tab.push_back({label(t), dur(m), med > 0 ? (m >= med ? "+" : "") + fmt_num(100.0 * (m / med - 1), 1) + "%" : "-"});
  }
  os << render_table(tab, format, format == "term" ? "  " : "") << "\n";
  return os.str();
}

// The terminal report prints blocks in section order after the environment: the step table goes
// first there; in Markdown and HTML it sits in the data layer section.
const bool kBlocks = register_report_block(40, {Section::environment,
                                                [](const Report& r, const RenderOptions& o, const std::string& f) {
                                                  return f == "term" ? steps_block(r, o, f) : std::string();
                                                }}) &&
                     register_report_block(40, {Section::data,
                                                [](const Report& r, const RenderOptions& o, const std::string& f) {
                                                  return f == "term" ? std::string() : steps_block(r, o, f);
                                                }}) &&
                     register_report_block(40, {Section::gpu, gpu_block}) &&
                     register_report_block(40, {Section::framework, framework_block}) &&
                     register_report_block(40, {Section::distributed, distributed_block});

}  // namespace
}  // namespace plumb::trace
