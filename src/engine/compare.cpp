// `plumb compare [RUN] [--baseline RUN|FILE]`: every metric against the baseline with the change
// and a verdict, the environment differences, and where to look; `plumb history [METRIC]`.
#include <memory>

#include "bench/compare.h"
#include "core/json.h"
#include "report/table.h"
#include "bench/stats.h"
#include "engine/machine.h"
#include "engine/history.h"
#include "engine/compare.h"
#include "engine/output.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

int run_compare(const CompareOptions& a) {
  check_output(a.output);  // fails early with the hint; validates --lang
  Config cfg = load_config_or_throw(a.config);
  if (a.warn_pct >= 0) cfg.thresholds.set("baseline.warn_pct", a.warn_pct);
  if (a.fail_pct >= 0) cfg.thresholds.set("baseline.fail_pct", a.fail_pct);
  if (cfg.thresholds.get("baseline.warn_pct") > cfg.thresholds.get("baseline.fail_pct")) {
    throw UsageError("compare: --warn-pct must not exceed --fail-pct");
  }
  auto db = open_history_or_throw(a.history, false);
  std::int64_t id = 0;
  if (a.run.empty()) {
    auto l = db->latest_with_metrics();
    if (!l) throw UsageError(l.error().message);
    id = *l;
  } else {
    auto v = parse_uint(a.run);
    if (!v || *v == 0 || *v > (1ull << 62)) throw UsageError("'" + a.run + "' is not a run id (see plumb history)");
    id = static_cast<std::int64_t>(*v);
  }
  auto run = db->load(id);
  if (!run) throw UsageError(run.error().message);
  Report r;
  r.facts = run->facts;
  // Imported runs carry metrics without benchmark results: wrap them so the rules see them.
  bool has_metrics = false;
  for (const auto& x : r.facts.bench.results) has_metrics |= x.status == "ok" && !x.metrics.empty();
  if (!has_metrics) {
    BenchResult x;
    x.bench = run->summary.command;
    x.metrics = run->metrics;
    r.facts.bench.results.push_back(x);
  }
  attach_baseline(r.facts, db.get(), a.history);
  if (!r.facts.bench.baseline.has()) throw UsageError(r.facts.bench.baseline.why());
  // The report is about run `id` as compared now.
  r.facts.meta.command = "compare run " + std::to_string(id);
  r.facts.meta.hostname = run->summary.hostname;
  r.facts.meta.started_at = run->summary.started_at;
  // The machine's own drift is read from the runs before the one compared.
  attach_earlier_runs(r.facts, db.get(), id);
  Selection sel;
  sel.only = {"l2.baseline"};
  r.findings = judge(r.facts, cfg.thresholds, sel);
  emit(r, a.output);
  return exit_code_for(r.findings);
}


// The runs (or one metric across runs) as a table in the shared table model.
TextTable history_table(HistoryDb& db, const HistoryListOptions& a, Lang lang) {
  if (a.metric.empty()) {
    auto runs = db.runs("", a.limit);
    if (!runs) throw UsageError(runs.error().message);
    TextTable t{{tr(lang, "history.id"), tr(lang, "history.when"), tr(lang, "history.command"), tr(lang, "history.host"),
                 tr(lang, "history.metrics"), tr(lang, "history.baseline")}};
    for (const auto& r : *runs) {
      t.push_back({std::to_string(r.id), r.started_at, r.command, r.hostname, std::to_string(r.metrics), r.baseline ? "*" : ""});
    }
    return t;
  }
  auto h = db.metric_history(a.metric, a.limit);
  if (!h) throw UsageError(h.error().message);
  if (h->empty()) throw UsageError("no run has metric '" + a.metric + "' in " + db.path() + " (plumb history lists runs)");
  double first = h->front().second.median;
  TextTable t{{tr(lang, "history.id"), tr(lang, "history.when"), a.metric + " (" + h->front().second.unit + ")", "CV",
               tr(lang, "compare.change"), tr(lang, "history.baseline")}};
  for (const auto& [r, m] : *h) {
    t.push_back({std::to_string(r.id), r.started_at, fmt_num(m.median, 3), fmt_num(m.cv_pct, 1) + " %",
                 format_change(change_pct(first, m.median)), r.baseline ? "*" : ""});
  }
  return t;
}

// JSON of the same table: {"schema_version", "tool", "lang", "history": {"database", "metric", "runs": [...]}}
// with each row's cells under the documented keys.
json history_json(HistoryDb& db, const HistoryListOptions& a, Lang lang) {
  json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["tool"] = {{"name", "plumb"}, {"version", plumb_version()}};
  doc["lang"] = lang_code(lang);
  json runs = json::array();
  if (a.metric.empty()) {
    auto rs = db.runs("", a.limit);
    if (!rs) throw UsageError(rs.error().message);
    for (const auto& r : *rs) {
      runs.push_back({{"id", r.id}, {"started_at", r.started_at}, {"command", r.command}, {"hostname", r.hostname},
                      {"benches", r.benches}, {"metrics", r.metrics}, {"baseline", r.baseline}});
    }
  } else {
    auto h = db.metric_history(a.metric, a.limit);
    if (!h) throw UsageError(h.error().message);
    if (h->empty()) throw UsageError("no run has metric '" + a.metric + "' in " + db.path() + " (plumb history lists runs)");
    for (const auto& [r, m] : *h) {
      runs.push_back({{"id", r.id}, {"started_at", r.started_at}, {"median", m.median}, {"cv_pct", m.cv_pct}, {"unit", m.unit},
                      {"baseline", r.baseline}});
    }
  }
  doc["history"] = {{"database", db.path()}, {"metric", a.metric}, {"runs", runs}};
  return doc;
}

int run_history(const HistoryListOptions& a) {
  RenderOptions ro = check_output(a.output);  // fails early with the hint; validates --lang
  const Lang lang = ro.lang;
  if (a.limit <= 0) throw UsageError("history: --limit must be positive");
  auto db = open_history_or_throw(a.history, false);
  const std::string& fmt = a.output.format;
  if (fmt == "json") {
    write_output(history_json(*db, a, lang).dump(2) + "\n", a.output.out);
    return 0;
  }
  if (a.metric.empty()) {
    auto runs = db->runs("", 1);
    if (runs && runs->empty()) {
      write_output(fill(tr(lang, "history.empty"), {{"db", db->path()}}) + "\n", a.output.out);
      return 0;
    }
  }
  std::string title = a.metric.empty() ? tr(lang, "history.title") : a.metric;
  std::string body = render_table(history_table(*db, a, lang), fmt);
  if (fmt == "html") write_output(render_html_page(title + " — " + db->path(), body, lang), a.output.out);
  else if (fmt == "md") write_output("## plumb history: " + title + "\n\n" + body, a.output.out);
  else write_output(body, a.output.out);
  return 0;
}



void engine_compare_tables(Tables& t) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"history.empty", {"no runs recorded in {db}", "{db} 中没有记录"}},
    {"history.id", {"run", "运行"}},
    {"history.when", {"started", "开始时间"}},
    {"history.command", {"command", "命令"}},
    {"history.host", {"host", "主机"}},
    {"history.metrics", {"metrics", "指标数"}},
    {"history.baseline", {"baseline", "基线"}},
    {"history.title", {"recorded runs", "已记录的运行"}},
};
});
}

}  // namespace plumb
