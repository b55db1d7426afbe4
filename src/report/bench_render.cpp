// Benchmark blocks of the text reports (baseline section): each result's metric table, sweep,
// settings, method and context, and the comparison with the baseline; words from its interface-word rows.
#include "report/bench_render.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/text.h"
#include "report/report.h"
#include "report/table.h"
#include "core/tables.h"

namespace plumb {

namespace {


std::string n(double v) {
  double a = std::fabs(v);
  return fmt_num(v, a >= 1000 ? 0 : a >= 100 ? 1 : a >= 1 ? 2 : 4);
}

std::string fact_s(const Fact<std::string>& f) { return f.has() ? *f : "n/a (" + f.why() + ")"; }
template <class T>
std::string fact_n(const Fact<T>& f) {
  if (!f.has()) return "n/a (" + f.why() + ")";
  if constexpr (std::is_floating_point_v<T>) return fmt_num(*f, 2);
  else return std::to_string(*f);
}

std::string table(const TextTable& t, const std::string& format) {
  return render_table(t, format, "    ") + (format == "md" ? "\n" : "");
}

std::string context_block(const BenchContext& c, Lang lang, const std::string& format) {
  std::string out = block_heading(tr(lang, "bench.context"), format);
  auto line = [&](const std::string& s) { out += block_line(s, format); };
  line(tr(lang, "bench.cpu") + ": " + fact_s(c.cpu_model));
  line(tr(lang, "bench.governor") + ": " + fact_s(c.governor));
  line(tr(lang, "bench.load") + ": " + fact_n(c.load_before) + " -> " + fact_n(c.load_after));
  line(tr(lang, "bench.cpus_allowed") + ": " + fact_n(c.allowed_cpus) + ", " + tr(lang, "bench.numa") + ": " + fact_n(c.numa_nodes));
  line(tr(lang, "bench.kernel") + ": " + fact_s(c.kernel));
  std::string v;
  for (const auto& [k, x] : c.versions) {
    if (!v.empty()) v += ", ";
    v.append(k).append(" ").append(x);
  }
  if (!v.empty()) line(tr(lang, "bench.versions") + ": " + v);
  auto gpus = [&](const std::vector<BenchGpuState>& g, const char* key) {
    for (const auto& s : g) {
      std::string others;
      if (s.other_processes.has() && !s.other_processes->empty()) {
        others = concat(", ", tr(lang, "bench.other_processes"), ": ", join(*s.other_processes, ", "));
      }
      line(tr(lang, key) + " " + s.bus_id + ": SM " + fact_n(s.sm_clock_mhz) + " MHz, mem " + fact_n(s.mem_clock_mhz) +
           " MHz, reasons " + fact_n(s.throttle_reasons) + others);
    }
  };
  gpus(c.gpus_before, "bench.gpu_before");
  gpus(c.gpus_after, "bench.gpu_after");
  return out;
}

std::string result_block(const BenchResult& r, Lang lang, const std::string& format) {
  std::string out = block_heading("plumb " + tr(lang, "bench.title") + " " + r.bench + " — " + r.context.hostname + " " +
                                      r.context.started_at,
                                  format);
  if (r.status == "skipped") return out + block_line(fill(tr(lang, "bench.skipped"), {{"reason", r.reason}}), format);
  if (r.status != "ok") return out + block_line(fill(tr(lang, "bench.error"), {{"reason", r.reason}}), format);
  out += render_metric_table(r.metrics, lang, format);
  if (!r.rows.empty()) {
    out += block_heading(tr(lang, "bench.sweep"), format);
    std::vector<std::string> keys, vals;
    for (const auto& [k, v] : r.rows.front().setting) keys.push_back(k);
    for (const auto& [k, v] : r.rows.front().values) vals.push_back(k);
    TextTable s{keys};
    s[0].insert(s[0].end(), vals.begin(), vals.end());
    for (const auto& row : r.rows) {
      std::vector<std::string> line;
      line.reserve(keys.size() + vals.size());
      for (const auto& k : keys) line.push_back(row.setting.count(k) ? row.setting.at(k) : "");
      for (const auto& k : vals) line.push_back(row.values.count(k) ? n(row.values.at(k)) : "");
      s.push_back(line);
    }
    out += table(s, format);
  }
  std::string p;
  for (const auto& [k, v] : r.params) {
    if (!p.empty()) p += ", ";
    p.append(k).append("=").append(v);
  }
  out += block_line(tr(lang, "bench.params") + ": " + p, format);
  for (const auto& [k, v] : r.notes) out += block_line(std::string(k).append(": ").append(v), format);
  return out + context_block(r.context, lang, format);
}

// The metrics measured in this run, in result order.
std::vector<BenchMetric> measured(const Facts& f) {
  std::vector<BenchMetric> v;
  for (const auto& r : f.bench.results) {
    if (r.status != "ok") continue;
    for (const auto& m : r.metrics) v.push_back(m);
  }
  return v;
}

std::string results_block(const Report& r, const RenderOptions& o, const std::string& format) {
  std::string out;
  for (const auto& res : r.facts.bench.results) out += result_block(res, o.lang, format) + (format == "html" ? "" : "\n");
  return out;
}

// Each metric against the baseline: medians and the change (the verdicts are the l2.baseline findings).
std::string compare_block(const Report& r, const RenderOptions& o, const std::string& format) {
  const auto& bf = r.facts.bench;
  auto cur = measured(r.facts);
  if (!bf.baseline.has() || cur.empty()) return {};
  const Lang lang = o.lang;
  const BaselineFacts& b = *bf.baseline;
  const auto& m = r.facts.meta;
  std::string out = block_heading(tr(lang, "compare.title") + ": " + tr(lang, "compare.baseline") + " " + b.origin + ", " +
                                      b.hostname + ", " + b.run_started_at + "; " + tr(lang, "compare.current") + " " +
                                      m.command + ", " + m.hostname + ", " + m.started_at,
                                  format);
  TextTable t{{tr(lang, "bench.metric"), tr(lang, "compare.baseline"), tr(lang, "compare.current"), tr(lang, "bench.unit"),
               tr(lang, "compare.change"), tr(lang, "compare.drift")}};
  const std::vector<MetricRuns>* earlier = bf.earlier.has() ? &*bf.earlier : nullptr;
  for (const auto& row : compare_metrics(b.metrics, cur, CompareLimits{}, earlier)) {
    t.push_back({row.metric, row.baseline ? n(*row.baseline) : "-", row.current ? n(*row.current) : "-", row.unit,
                 format_change(row.change_pct),
                 row.drift_runs > 0 ? fmt_num(row.drift_pct, 1) + " % (" + std::to_string(row.drift_runs) + " " + tr(lang, "compare.runs") + ")" : "-"});
  }
  out += table(t, format);
  out += block_heading(tr(lang, "compare.env"), format);
  auto env = environment_diff(b.environment, run_environment(r.facts));
  if (env.empty()) return out + block_line(tr(lang, "compare.no_env"), format) + (format == "html" ? "" : "\n");
  TextTable e{{"", tr(lang, "compare.baseline"), tr(lang, "compare.current")}};
  for (const auto& d : env) e.push_back({d.key, d.baseline, d.current});
  return out + table(e, format) + (format == "html" ? "" : "\n");
}


}  // namespace

std::string render_metric_table(const std::vector<BenchMetric>& metrics, Lang lang, const std::string& format) {
  TextTable t{{tr(lang, "bench.metric"), tr(lang, "bench.median"), tr(lang, "bench.min"), tr(lang, "bench.max"),
               tr(lang, "bench.cv"), tr(lang, "bench.samples"), tr(lang, "bench.unit")}};
  for (const auto& m : metrics) {
    t.push_back({m.name, n(m.median), n(m.min), n(m.max), fmt_num(m.cv_pct, 1) + " %", std::to_string(m.samples), m.unit});
  }
  return table(t, format);
}

void report_bench_render_tables(Tables& t, ReportTables& r) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"bench.title", {"benchmark", "基准测试"}},
    {"bench.context", {"Context", "测试环境"}},
    {"bench.params", {"Settings", "参数"}},
    {"bench.notes", {"Method", "方法"}},
    {"bench.metric", {"metric", "指标"}},
    {"bench.median", {"median", "中位数"}},
    {"bench.min", {"min", "最小"}},
    {"bench.max", {"max", "最大"}},
    {"bench.cv", {"CV", "变异系数"}},
    {"bench.samples", {"samples", "样本数"}},
    {"bench.unit", {"unit", "单位"}},
    {"bench.sweep", {"Sweep", "扫描"}},
    {"bench.skipped", {"skipped: {reason}", "未检查：{reason}"}},
    {"bench.error", {"could not run: {reason}", "无法运行：{reason}"}},
    {"bench.cpu", {"CPU", "CPU"}},
    {"bench.governor", {"governor", "调频策略"}},
    {"bench.load", {"load", "负载"}},
    {"bench.cpus_allowed", {"allowed CPUs", "可用 CPU"}},
    {"bench.numa", {"NUMA nodes", "NUMA 节点"}},
    {"bench.kernel", {"kernel", "内核"}},
    {"bench.versions", {"versions", "版本"}},
    {"bench.gpu_before", {"GPU before", "测试前 GPU"}},
    {"bench.other_processes", {"other processes", "其他进程"}},
    {"bench.gpu_after", {"GPU after", "测试后 GPU"}},
    {"compare.title", {"Baseline comparison", "基线对比"}},
    {"compare.baseline", {"baseline", "基线"}},
    {"compare.current", {"current", "当前"}},
    {"compare.change", {"change", "变化"}},
    {"compare.drift", {"run-to-run spread here", "本机运行间极差"}},
    {"compare.runs", {"runs", "次"}},
    {"compare.env", {"Environment differences", "环境差异"}},
    {"compare.no_env", {"no environment difference recorded", "未记录到环境差异"}},
};
});
  r.add_report_block(20, {Section::baseline, results_block});
  r.add_report_block(30, {Section::baseline, compare_block});
}

}  // namespace plumb
