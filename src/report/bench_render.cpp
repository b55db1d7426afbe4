// Benchmark tables for the terminal and Markdown; words come from register_ui rows.
#include "report/bench_render.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/catalog.h"
#include "core/json.h"
#include "core/text.h"

namespace plumb {

namespace {

const bool kUi = register_ui({
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
    {"bench.skipped", {"skipped: {reason}", "已跳过：{reason}"}},
    {"bench.error", {"could not run: {reason}", "无法运行：{reason}"}},
    {"bench.findings", {"Findings", "诊断结论"}},
    {"bench.cpu", {"CPU", "CPU"}},
    {"bench.governor", {"governor", "调频策略"}},
    {"bench.load", {"load", "负载"}},
    {"bench.cpus_allowed", {"allowed CPUs", "可用 CPU"}},
    {"bench.numa", {"NUMA nodes", "NUMA 节点"}},
    {"bench.kernel", {"kernel", "内核"}},
    {"bench.versions", {"versions", "版本"}},
    {"bench.gpu_before", {"GPU before", "测试前 GPU"}},
    {"bench.gpu_after", {"GPU after", "测试后 GPU"}},
    {"compare.title", {"Baseline comparison", "基线对比"}},
    {"compare.baseline", {"baseline", "基线"}},
    {"compare.current", {"current", "当前"}},
    {"compare.change", {"change", "变化"}},
    {"compare.verdict", {"verdict", "结论"}},
    {"compare.env", {"Environment differences", "环境差异"}},
    {"compare.no_env", {"no environment difference recorded", "未记录到环境差异"}},
    {"compare.noisy", {"within noise", "在噪声范围内"}},
    {"verdict.better", {"better", "更好"}},
    {"verdict.same", {"same", "持平"}},
    {"verdict.warn", {"worse", "变差"}},
    {"verdict.fail", {"much worse", "显著变差"}},
    {"verdict.only_baseline", {"baseline only", "仅基线有"}},
    {"verdict.only_current", {"new", "新增"}},
});

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

// A table: first row is the header. Markdown pipes, or aligned columns for the terminal.
std::string table(const std::vector<std::vector<std::string>>& rows, bool md, const std::string& indent) {
  std::ostringstream os;
  if (rows.empty()) return "";
  if (md) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      os << "|";
      for (const auto& c : rows[i]) os << " " << c << " |";
      os << "\n";
      if (i == 0) {
        os << "|";
        for (std::size_t k = 0; k < rows[0].size(); ++k) os << "---|";
        os << "\n";
      }
    }
    return os.str();
  }
  // Width by display columns: count UTF-8 lead bytes, and CJK characters as two columns.
  auto width = [](const std::string& s) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      auto c = static_cast<unsigned char>(s[i]);
      if ((c & 0xC0) == 0x80) continue;
      w += c >= 0xE3 && c <= 0xE9 ? 2 : 1;
    }
    return w;
  };
  std::vector<std::size_t> wid(rows[0].size(), 0);
  for (const auto& r : rows) {
    for (std::size_t k = 0; k < r.size() && k < wid.size(); ++k) wid[k] = std::max(wid[k], width(r[k]));
  }
  for (const auto& r : rows) {
    os << indent;
    for (std::size_t k = 0; k < r.size() && k < wid.size(); ++k) {
      os << r[k];
      if (k + 1 < r.size()) os << std::string(wid[k] - width(r[k]) + 2, ' ');
    }
    os << "\n";
  }
  return os.str();
}

void context_block(std::ostringstream& os, const BenchContext& c, Lang lang, bool md) {
  std::string b = md ? "- " : "  ";
  os << (md ? "\n**" + tr(lang, "bench.context") + "**\n\n" : tr(lang, "bench.context") + ":\n");
  os << b << tr(lang, "bench.cpu") << ": " << fact_s(c.cpu_model) << "\n";
  os << b << tr(lang, "bench.governor") << ": " << fact_s(c.governor) << "\n";
  os << b << tr(lang, "bench.load") << ": " << fact_n(c.load_before) << " -> " << fact_n(c.load_after) << "\n";
  os << b << tr(lang, "bench.cpus_allowed") << ": " << fact_n(c.allowed_cpus) << ", " << tr(lang, "bench.numa") << ": "
     << fact_n(c.numa_nodes) << "\n";
  os << b << tr(lang, "bench.kernel") << ": " << fact_s(c.kernel) << "\n";
  std::string v;
  for (const auto& [k, x] : c.versions) v += (v.empty() ? "" : ", ") + k + " " + x;
  if (!v.empty()) os << b << tr(lang, "bench.versions") << ": " << v << "\n";
  auto gpus = [&](const std::vector<BenchGpuState>& g, const char* key) {
    for (const auto& s : g) {
      os << b << tr(lang, key) << " " << s.bus_id << ": SM " << fact_n(s.sm_clock_mhz) << " MHz, mem " << fact_n(s.mem_clock_mhz)
         << " MHz, reasons " << fact_n(s.throttle_reasons) << "\n";
    }
  };
  gpus(c.gpus_before, "bench.gpu_before");
  gpus(c.gpus_after, "bench.gpu_after");
}

}  // namespace

std::string render_findings_compact(const std::vector<Finding>& findings, Lang lang, bool md) {
  std::ostringstream os;
  std::vector<const Finding*> v;
  for (const auto& f : findings) v.push_back(&f);
  std::stable_sort(v.begin(), v.end(), [](const Finding* a, const Finding* b) { return a->status < b->status; });
  for (const Finding* f : v) {
    const CatalogEntry* e = find_entry(f->id);
    std::string title = e != nullptr ? e->title.in(lang) : f->id;
    std::string tag = "[" + tr(lang, std::string("status.") + status_name(f->status)) + "]";
    os << (md ? "- " : "") << tag << " " << title;
    if (f->subject != "host") os << " (" << f->subject << ")";
    os << (md ? " `" + f->id + "`" : "  " + f->id) << "\n" << (md ? "  " : "       ") << finding_message(*f, lang) << "\n";
    if (f->status == Status::fail || f->status == Status::warn) {
      std::string ind = md ? "  - " : "       ";
      for (const auto& ev : f->evidence) {
        os << ind << tr(lang, "label.evidence") << ": " << ev.what << " = " << ev.value;
        if (!ev.source.empty()) os << " (" << ev.source << ")";
        os << "\n";
      }
      if (!f->threshold.empty()) os << ind << tr(lang, "label.threshold") << ": " << f->threshold << "\n";
      std::string fix = finding_fix(*f, lang);
      if (!fix.empty()) os << ind << tr(lang, "label.fix") << ": " << fix << "\n";
      std::string verify = finding_verify(*f);
      if (!verify.empty()) os << ind << tr(lang, "label.verify") << ": " << verify << "\n";
    }
  }
  return os.str();
}

std::string render_metric_table(const std::vector<BenchMetric>& metrics, Lang lang, bool md) {
  std::vector<std::vector<std::string>> t{{tr(lang, "bench.metric"), tr(lang, "bench.median"), tr(lang, "bench.min"), tr(lang, "bench.max"),
                                           tr(lang, "bench.cv"), tr(lang, "bench.samples"), tr(lang, "bench.unit")}};
  for (const auto& m : metrics) {
    t.push_back({m.name, n(m.median), n(m.min), n(m.max), fmt_num(m.cv_pct, 1) + " %", std::to_string(m.samples), m.unit});
  }
  return table(t, md, "  ");
}

std::string render_bench_results(const Facts& facts, const std::vector<Finding>& findings, Lang lang, bool md) {
  std::ostringstream os;
  for (const auto& r : facts.bench.results) {
    os << (md ? "### " : "") << "plumb " << tr(lang, "bench.title") << " " << r.bench << " — " << r.context.hostname << " "
       << r.context.started_at << "\n";
    if (md) os << "\n";
    if (r.status == "skipped") {
      os << "  " << fill(tr(lang, "bench.skipped"), {{"reason", r.reason}}) << "\n\n";
      continue;
    }
    if (r.status != "ok") {
      os << "  " << fill(tr(lang, "bench.error"), {{"reason", r.reason}}) << "\n\n";
      continue;
    }
    os << render_metric_table(r.metrics, lang, md);
    if (!r.rows.empty()) {
      os << (md ? "\n**" + tr(lang, "bench.sweep") + "**\n\n" : tr(lang, "bench.sweep") + ":\n");
      std::vector<std::string> keys, vals;
      for (const auto& [k, v] : r.rows.front().setting) keys.push_back(k);
      for (const auto& [k, v] : r.rows.front().values) vals.push_back(k);
      std::vector<std::vector<std::string>> s{keys};
      s[0].insert(s[0].end(), vals.begin(), vals.end());
      for (const auto& row : r.rows) {
        std::vector<std::string> line;
        for (const auto& k : keys) line.push_back(row.setting.count(k) ? row.setting.at(k) : "");
        for (const auto& k : vals) line.push_back(row.values.count(k) ? n(row.values.at(k)) : "");
        s.push_back(line);
      }
      os << table(s, md, "  ");
    }
    std::string p;
    for (const auto& [k, v] : r.params) p += (p.empty() ? "" : ", ") + k + "=" + v;
    os << (md ? "\n- " : "  ") << tr(lang, "bench.params") << ": " << p << "\n";
    for (const auto& [k, v] : r.notes) os << (md ? "- " : "  ") << k << ": " << v << "\n";
    context_block(os, r.context, lang, md);
    os << "\n";
  }
  if (!findings.empty()) {
    os << (md ? "### " : "") << tr(lang, "bench.findings") << (md ? "\n\n" : ":\n") << render_findings_compact(findings, lang, md);
  }
  return os.str();
}

std::string render_compare(const CompareView& v, Lang lang, bool md) {
  std::ostringstream os;
  os << (md ? "## " : "") << tr(lang, "compare.title") << ": " << tr(lang, "compare.baseline") << " " << v.baseline_label << "; "
     << tr(lang, "compare.current") << " " << v.current_label << "\n\n";
  std::vector<std::vector<std::string>> t{{tr(lang, "bench.metric"), tr(lang, "compare.baseline"), tr(lang, "compare.current"),
                                           tr(lang, "bench.unit"), tr(lang, "compare.change"), tr(lang, "compare.verdict")}};
  for (const auto& r : v.rows) {
    std::string verdict = tr(lang, std::string("verdict.") + verdict_name(r.verdict));
    if (r.within_noise && (r.verdict == Verdict::warn || r.verdict == Verdict::fail)) verdict += " (" + tr(lang, "compare.noisy") + ")";
    t.push_back({r.metric, r.baseline ? n(*r.baseline) : "-", r.current ? n(*r.current) : "-", r.unit, format_change(r.change_pct), verdict});
  }
  os << table(t, md, "  ") << "\n";
  os << (md ? "### " : "") << tr(lang, "compare.env") << (md ? "\n\n" : ":\n");
  if (v.env.empty()) {
    os << (md ? "- " : "  ") << tr(lang, "compare.no_env") << "\n";
  } else {
    std::vector<std::vector<std::string>> e{{"", tr(lang, "compare.baseline"), tr(lang, "compare.current")}};
    for (const auto& d : v.env) e.push_back({d.key, d.baseline, d.current});
    os << table(e, md, "  ");
  }
  if (!v.findings.empty()) {
    os << "\n" << (md ? "### " : "") << tr(lang, "bench.findings") << (md ? "\n\n" : ":\n") << render_findings_compact(v.findings, lang, md);
  }
  return os.str();
}

std::string compare_json(const CompareView& v) {
  json j;
  j["baseline"] = v.baseline_label;
  j["current"] = v.current_label;
  j["rows"] = json::array();
  for (const auto& r : v.rows) {
    json x{{"metric", r.metric}, {"unit", r.unit}, {"higher_is_better", r.higher_is_better}, {"verdict", verdict_name(r.verdict)},
           {"worse_pct", r.worse_pct}, {"noise_pct", r.noise_pct}, {"within_noise", r.within_noise}};
    x["baseline_median"] = r.baseline ? json(*r.baseline) : json(nullptr);
    x["current_median"] = r.current ? json(*r.current) : json(nullptr);
    x["change_pct"] = r.change_pct ? json(*r.change_pct) : json(nullptr);
    j["rows"].push_back(x);
  }
  j["environment"] = json::array();
  for (const auto& d : v.env) j["environment"].push_back({{"key", d.key}, {"baseline", d.baseline}, {"current", d.current}});
  j["findings"] = v.findings;
  return j.dump(2) + "\n";
}

}  // namespace plumb
