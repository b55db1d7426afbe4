// Rules comparing this run's measurements with the baseline attached to Facts: a finding per
// regressed metric ("+32.4 %: the infrastructure is the suspect, look here"), one summary when
// all are within bounds, and the environment differences that could explain a change.

#include <algorithm>
#include <map>

#include "bench/compare.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

std::vector<BenchMetric> current_metrics(const Facts& f) {
  std::vector<BenchMetric> v;
  for (const auto& r : f.bench.results) {
    if (r.status != "ok") continue;
    for (const auto& m : r.metrics) {
      if (m.samples > 0) v.push_back(m);
    }
  }
  return v;
}


// The benchmark that measured each metric of this run ("membw.copy.all" -> "membw").
std::map<std::string, std::string> bench_of_metrics(const Facts& f) {
  std::map<std::string, std::string> out;
  for (const auto& r : f.bench.results) {
    for (const auto& m : r.metrics) out[m.name] = r.bench;
  }
  return out;
}

// The settings of `bench` that differ from the baseline's ("size 64 MiB -> 256 MiB"): numbers
// measured with other settings are not compared. A setting the baseline does not record (one
// written by an older plumb, or by hand) is not known to differ.
std::string setting_changes(const std::vector<EnvDiff>& diffs, const std::string& bench) {
  const std::string prefix = "setting." + bench + ".";
  std::string out;
  for (const auto& d : diffs) {
    if (d.key.rfind(prefix, 0) != 0 || d.baseline == "-" || d.current == "-") continue;
    out += (out.empty() ? "" : ", ") + d.key.substr(prefix.size()) + " " + d.baseline + " -> " + d.current;
  }
  return out;
}

std::vector<Finding> regression(const Facts& f, const Thresholds& th) {
  const std::string id = "l2.baseline.regression";
  auto cur = current_metrics(f);
  if (cur.empty()) {
    return {skipped(id, "no benchmark measured anything in this run (plumb check --bench quick, or plumb bench NAME)")};
  }
  if (!f.bench.baseline.has()) return {skipped(id, f.bench.baseline.why())};
  const BaselineFacts& b = *f.bench.baseline;
  CompareLimits lim{th.get("baseline.warn_pct"), th.get("baseline.fail_pct")};
  const std::vector<MetricRuns>* earlier = f.bench.earlier.has() ? &*f.bench.earlier : nullptr;
  auto rows = compare_metrics(b.metrics, cur, lim, earlier);
  const auto diffs = environment_diff(b.environment, run_environment(f));
  const auto benches = bench_of_metrics(f);
  std::vector<Finding> out;
  std::map<std::string, std::pair<std::vector<std::string>, std::string>> not_comparable;
  int compared = 0;
  for (const auto& r : rows) {
    if (r.verdict == Verdict::only_baseline || r.verdict == Verdict::only_current) continue;
    auto bench = benches.find(r.metric);
    std::string changed = bench == benches.end() ? std::string() : setting_changes(diffs, bench->second);
    if (!changed.empty()) {
      // Not like for like: no verdict, whatever the numbers say; one note per benchmark.
      auto& [metrics, settings] = not_comparable[bench->second];
      metrics.push_back(r.metric);
      settings = changed;
      continue;
    }
    ++compared;
    if (r.verdict != Verdict::warn && r.verdict != Verdict::fail) continue;
    Finding x;
    x.id = id;
    x.subject = r.metric;
    x.status = r.verdict == Verdict::fail ? Status::fail : Status::warn;
    Text ptr = regression_pointers(r.metric);
    x.arg("metric", r.metric).arg("unit", r.unit).arg("baseline", compare_num(*r.baseline)).arg("current", compare_num(*r.current));
    x.arg("change", format_change(r.change_pct)).arg("worse", fmt_num(r.worse_pct, 1));
    std::string ids;
    for (const auto& id3 : regression_l3_ids(r.metric)) ids += (ids.empty() ? "" : ", ") + id3;
    x.arg("pointers_en", ptr.en).arg("pointers_zh", ptr.zh).arg("origin", b.origin).arg("checks", ids.empty() ? "-" : ids);
    x.add("baseline", compare_num(*r.baseline) + " " + r.unit, b.origin);
    x.add("current", compare_num(*r.current) + " " + r.unit, "this run");
    x.add("direction", r.higher_is_better ? "higher is better" : "lower is better", "");
    if (const MetricRuns* e = r.drift_runs > 0 && earlier != nullptr ? find_runs(*earlier, r.metric) : nullptr) {
      x.add("earlier runs on this host", medians_text(e->medians, r.unit) + " (spread " + fmt_num(r.drift_pct, 1) + " %)",
            f.bench.earlier.source + ", runs " + run_ids_text(e->run_ids));
    }
    // A change within the machine's own drift or the samples' scatter proves nothing: inconclusive,
    // a note that says so, never a warning or failure that blames the infrastructure.
    if (r.within_drift) {
      x.variant = "drift";
      x.status = Status::info;
      x.arg("drift", fmt_num(r.drift_pct, 1)).arg("runs", std::to_string(r.drift_runs));
    } else if (r.within_noise) {
      x.variant = "noisy";
      x.status = Status::info;
      x.arg("noise", fmt_num(r.noise_pct, 1));
    }
    x.threshold = "worse by <= " + fmt_num(lim.warn_pct, 0) + " % (warn), <= " + fmt_num(lim.fail_pct, 0) + " % (fail)";
    out.push_back(x);
  }
  const bool none_judged = out.empty();
  for (const auto& [bench, what] : not_comparable) {
    Finding x;
    x.id = id;
    x.subject = bench;
    x.status = Status::info;
    x.variant = "not_comparable";
    x.arg("bench", bench).arg("metrics", join(what.first, ", ")).arg("settings", what.second).arg("origin", b.origin);
    x.add("settings that differ", what.second, b.origin);
    out.push_back(x);
  }
  if (none_judged) {
    if (compared == 0 && !out.empty()) return out;
    if (compared == 0) return {skipped(id, "no metric in common with the baseline (" + b.origin + ")")};
    Finding x;
    x.id = id;
    x.status = Status::pass;
    x.arg("n", std::to_string(compared)).arg("warn", fmt_num(lim.warn_pct, 0)).arg("origin", b.origin);
    out.push_back(x);
  }
  return out;
}

std::vector<Finding> environment(const Facts& f, const Thresholds&) {
  const std::string id = "l2.baseline.environment";
  if (!f.bench.baseline.has()) return {};  // the regression rule already says why
  if (current_metrics(f).empty()) return {};
  const BaselineFacts& b = *f.bench.baseline;
  auto diffs = environment_diff(b.environment, run_environment(f));
  Finding x;
  x.id = id;
  x.arg("origin", b.origin).arg("n", std::to_string(diffs.size()));
  x.status = diffs.empty() ? Status::pass : Status::info;
  for (const auto& d : diffs) x.add(d.key, d.baseline + " -> " + d.current, "");
  return {x};
}


}  // namespace
void rules_bench_baseline_tables(Tables& t) {
  t.add_rule({"l2.baseline.regression", {"collect.bench_quick"}, regression});
  t.add_rule({"l2.baseline.environment", {"collect.bench_quick"}, environment});
}

}  // namespace plumb
