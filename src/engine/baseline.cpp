// `plumb baseline set [RUN] | show | export FILE | import FILE`: mark, inspect and move baselines.
#include <iostream>
#include <memory>
#include <sstream>

#include "report/bench_render.h"
#include "engine/machine.h"
#include "engine/history.h"
#include "engine/baseline.h"
#include "engine/output.h"
#include "core/atomic_file.h"
#include "core/text.h"
#include "store/baseline_file.h"
#include "core/tables.h"

namespace plumb {

namespace {


std::int64_t run_id(const std::string& s) {
  auto v = parse_uint(s);
  if (!v || *v == 0 || *v > (1ull << 62)) throw UsageError("'" + s + "' is not a run id (see plumb history)");
  return static_cast<std::int64_t>(*v);
}

}  // namespace

int run_baseline(const BaselineOptions& a) {
  OutputOptions oo;
  oo.lang = a.lang;
  Lang lang = render_options(oo).lang;
  if (a.action == "set") {
    auto db = open_history_or_throw(a.history, false);
    std::int64_t id = 0;
    if (a.arg.empty()) {
      auto l = db->latest_with_metrics();
      if (!l) throw UsageError(l.error().message);
      id = *l;
    } else {
      id = run_id(a.arg);
    }
    auto ok = db->set_baseline(id);
    if (!ok) throw UsageError(ok.error().message);
    auto run = db->load(id);
    if (!run) throw UsageError(run.error().message);
    std::cout << fill(tr(lang, "baseline.now"), {{"id", std::to_string(id)}, {"when", run->summary.started_at},
                                                 {"host", run->summary.hostname}, {"benches", run->summary.benches}})
              << "\n";
    return 0;
  }
  if (a.action == "show") {
    auto db = open_history_or_throw(a.history, false);
    auto b = db->baseline_id();
    if (!b) throw UsageError(b.error().message);
    if (!*b) {
      std::cout << fill(tr(lang, "baseline.none"), {{"db", db->path()}}) << "\n";
      return 0;
    }
    auto run = db->load(**b);
    if (!run) throw UsageError(run.error().message);
    std::cout << fill(tr(lang, "baseline.show"), {{"id", std::to_string(**b)}, {"when", run->summary.started_at},
                                                  {"host", run->summary.hostname}, {"command", run->summary.command}})
              << "\n";
    std::cout << render_metric_table(run->metrics, lang, "term");
    return 0;
  }
  if (a.action == "export") {
    if (a.arg.empty()) throw UsageError("baseline export needs a FILE");
    auto db = open_history_or_throw(a.history, false);
    std::int64_t id = 0;
    if (!a.run.empty()) {
      id = run_id(a.run);
    } else {
      auto b = db->baseline_id();
      if (!b) throw UsageError(b.error().message);
      if (!*b) throw UsageError(fill(tr(Lang::en, "baseline.none"), {{"db", db->path()}}) + " (or export --run RUN)");
      id = **b;
    }
    auto run = db->load(id);
    if (!run) throw UsageError(run.error().message);
    if (run->metrics.empty()) throw UsageError("run " + std::to_string(id) + " has no measurements to export");
    BaselineFile f;
    f.exported_at = now_iso8601();
    f.tool_version = plumb_version();
    f.started_at = run->summary.started_at;
    f.hostname = run->summary.hostname;
    f.command = run->summary.command;
    f.origin = "run " + std::to_string(id) + " of " + db->path();
    f.environment = run->environment;
    f.metrics = run->metrics;
    auto w = write_file_atomic(a.arg, baseline_file_json(f));
    if (!w) throw UsageError(w.error().message);
    std::cout << fill(tr(lang, "baseline.exported"), {{"id", std::to_string(id)}, {"n", std::to_string(f.metrics.size())}, {"file", a.arg}})
              << "\n";
    return 0;
  }
  if (a.action == "import") {
    if (a.arg.empty()) throw UsageError("baseline import needs a FILE");
    auto text = read_user_file(a.arg, 64u << 20);
    if (!text) throw UsageError("cannot read " + text.error().message);
    auto f = parse_baseline_file(*text);
    if (!f) throw UsageError(a.arg + ": " + f.error().message);
    if (f->metrics.empty()) throw UsageError(a.arg + ": no metrics to import");
    auto db = open_history_or_throw(a.history, true);
    auto id = db->record_imported(f->started_at, f->hostname, a.arg, f->metrics, f->environment);
    if (!id) throw UsageError(id.error().message);
    std::string msg = fill(tr(lang, "baseline.imported"), {{"n", std::to_string(f->metrics.size())}, {"file", a.arg}, {"id", std::to_string(*id)}});
    if (!a.no_set) {
      auto ok = db->set_baseline(*id);
      if (!ok) throw UsageError(ok.error().message);
      msg += tr(lang, "baseline.imported_set");
    }
    std::cout << msg << "\n";
    return 0;
  }
  throw UsageError("baseline: unknown action '" + a.action + "' (use set, show, export or import)");
}


void engine_baseline_tables(Tables& t) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"baseline.now", {"baseline is now run {id} ({when}, {host}, {benches})", "基线已设为运行 {id}（{when}，{host}，{benches}）"}},
    {"baseline.none", {"no baseline set in {db}: plumb baseline set [RUN]", "{db} 中尚未设置基线：plumb baseline set [RUN]"}},
    {"baseline.show", {"baseline: run {id} ({when}, {host}, {command})", "基线：运行 {id}（{when}，{host}，{command}）"}},
    {"baseline.exported", {"exported run {id} ({n} metrics) to {file}", "已将运行 {id}（{n} 项指标）导出到 {file}"}},
    {"baseline.imported", {"imported {n} metrics from {file} as run {id}", "已从 {file} 导入 {n} 项指标，记为运行 {id}"}},
    {"baseline.imported_set", {"; it is now the baseline", "；已设为基线"}},
};
});
}

}  // namespace plumb
