// `plumb compare [RUN] [--baseline RUN|FILE]`: every metric against the baseline with the change
// and a verdict, the environment differences, and where to look; `plumb history [METRIC]`.
#include <iostream>
#include <memory>
#include <sstream>

#include "bench/compare.h"
#include "report/bench_render.h"
#include "bench/stats.h"
#include "cli/check_options.h"
#include "cli/history_options.h"
#include "cli/subcommand.h"
#include "core/registry.h"
#include "core/text.h"

namespace plumb {

namespace {

struct CompareArgs {
  std::string run;
  HistoryOptions history;
  OutputOptions output;
  std::string config;
  double warn_pct = -1, fail_pct = -1;
};

int run_compare(const CompareArgs& a) {
  RenderOptions ro = render_options(a.output);
  if (a.output.format != "term" && a.output.format != "md" && a.output.format != "json") {
    throw UsageError("compare: unknown format '" + a.output.format + "' (use term, md or json)");
  }
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
  Facts facts = run->facts;
  // Imported runs carry metrics without benchmark results: wrap them so the rules see them.
  bool has_metrics = false;
  for (const auto& r : facts.bench.results) has_metrics |= r.status == "ok" && !r.metrics.empty();
  if (!has_metrics) {
    BenchResult r;
    r.bench = run->summary.command;
    r.metrics = run->metrics;
    facts.bench.results.push_back(r);
  }
  attach_baseline(facts, db.get(), a.history);
  if (!facts.bench.baseline.has()) throw UsageError(facts.bench.baseline.why());
  const BaselineFacts& b = *facts.bench.baseline;

  CompareView v;
  v.baseline_label = b.origin + ", " + b.hostname + ", " + b.run_started_at;
  v.current_label = "run " + std::to_string(id) + ", " + run->summary.hostname + ", " + run->summary.started_at;
  CompareLimits lim{cfg.thresholds.get("baseline.warn_pct"), cfg.thresholds.get("baseline.fail_pct")};
  v.rows = compare_metrics(b.metrics, metrics_of(facts), lim);
  auto env = run->environment.empty() ? run_environment(facts) : run->environment;
  v.env = environment_diff(b.environment, env);
  Selection sel;
  sel.only = {"l2.baseline.regression"};
  v.findings = judge(facts, cfg.thresholds, sel);
  if (a.output.format == "json") write_output(compare_json(v), a.output.out);
  else write_output(render_compare(v, ro.lang, a.output.format == "md"), a.output.out);
  return exit_code_for(v.findings);
}

struct HistoryArgs {
  std::string metric;
  int limit = 30;
  HistoryOptions history;
  OutputOptions output;
};

const bool kUi = register_ui({
    {"history.empty", {"no runs recorded in {db}", "{db} 中没有记录"}},
    {"history.id", {"run", "运行"}},
    {"history.when", {"started", "开始时间"}},
    {"history.command", {"command", "命令"}},
    {"history.host", {"host", "主机"}},
    {"history.metrics", {"metrics", "指标数"}},
    {"history.baseline", {"baseline", "基线"}},
});

int run_history(const HistoryArgs& a) {
  RenderOptions ro = render_options(a.output);
  Lang lang = ro.lang;
  if (a.limit <= 0) throw UsageError("history: --limit must be positive");
  auto db = open_history_or_throw(a.history, false);
  std::ostringstream os;
  if (a.metric.empty()) {
    auto runs = db->runs("", a.limit);
    if (!runs) throw UsageError(runs.error().message);
    if (runs->empty()) {
      write_output(fill(tr(lang, "history.empty"), {{"db", db->path()}}) + "\n", a.output.out);
      return 0;
    }
    if (a.output.format == "json") {
      json j = json::array();
      for (const auto& r : *runs) {
        j.push_back({{"id", r.id}, {"started_at", r.started_at}, {"command", r.command}, {"hostname", r.hostname},
                     {"benches", r.benches}, {"metrics", r.metrics}, {"baseline", r.baseline}});
      }
      write_output(j.dump(2) + "\n", a.output.out);
      return 0;
    }
    os << tr(lang, "history.id") << "\t" << tr(lang, "history.when") << "\t" << tr(lang, "history.command") << "\t"
       << tr(lang, "history.host") << "\t" << tr(lang, "history.metrics") << "\n";
    for (const auto& r : *runs) {
      os << r.id << (r.baseline ? " *" : "") << "\t" << r.started_at << "\t" << r.command << "\t" << r.hostname << "\t" << r.metrics
         << "\n";
    }
    os << "(* = " << tr(lang, "history.baseline") << ")\n";
  } else {
    auto h = db->metric_history(a.metric, a.limit);
    if (!h) throw UsageError(h.error().message);
    if (h->empty()) throw UsageError("no run has metric '" + a.metric + "' in " + db->path() + " (plumb history lists runs)");
    if (a.output.format == "json") {
      json j = json::array();
      for (const auto& [r, m] : *h) j.push_back({{"id", r.id}, {"started_at", r.started_at}, {"median", m.median}, {"cv_pct", m.cv_pct}, {"unit", m.unit}});
      write_output(j.dump(2) + "\n", a.output.out);
      return 0;
    }
    double first = h->front().second.median;
    os << a.metric << " (" << h->front().second.unit << ")\n";
    for (const auto& [r, m] : *h) {
      os << r.id << (r.baseline ? " *" : "") << "\t" << r.started_at << "\t" << fmt_num(m.median, 3) << "\tCV " << fmt_num(m.cv_pct, 1)
         << " %\t" << format_change(change_pct(first, m.median)) << "\n";
    }
  }
  write_output(os.str(), a.output.out);
  return 0;
}

const bool kCompare = register_subcommand({"compare", "compare a run with the baseline: change per metric, verdict, environment differences", 34,
                                           [](CLI::App& app) {
                                             auto a = std::make_shared<CompareArgs>();
                                             app.add_option("run", a->run, "run id (default: the latest run with measurements)");
                                             add_history_options(app, a->history, false);
                                             app.add_option("--baseline", a->history.baseline, "baseline run id or exported baseline JSON file (default: the recorded baseline)");
                                             app.add_option("--warn-pct", a->warn_pct, "worse by more than this % warns (default 10, or the config)");
                                             app.add_option("--fail-pct", a->fail_pct, "worse by more than this % fails (default 25, or the config)");
                                             app.add_option("--config", a->config, "TOML file overriding thresholds");
                                             add_output_options(app, a->output);
                                             return [a] { return run_compare(*a); };
                                           }});

const bool kHistory = register_subcommand({"history", "list recorded runs, or one metric across runs", 36, [](CLI::App& app) {
                                             auto a = std::make_shared<HistoryArgs>();
                                             app.add_option("metric", a->metric, "a metric name such as membw.copy.all");
                                             app.add_option("--limit", a->limit, "most recent runs to show")->capture_default_str();
                                             add_history_options(app, a->history, false);
                                             add_output_options(app, a->output);
                                             return [a] { return run_history(*a); };
                                           }});

}  // namespace
}  // namespace plumb
