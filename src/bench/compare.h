// Baseline comparison arithmetic: each metric's change in percent, which direction is worse, the
// verdict against the warn/fail thresholds, and the environment keys that differ. Pure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/facts.h"
#include "core/i18n.h"

namespace plumb {

struct CompareLimits {
  double warn_pct = 10;  // worse by more than this: warn
  double fail_pct = 25;  // worse by more than this: fail
};

enum class Verdict { better, same, warn, fail, only_baseline, only_current };
const char* verdict_name(Verdict v);

struct CompareRow {
  std::string metric;
  std::string unit;
  bool higher_is_better = true;
  std::optional<double> baseline, current;  // medians
  std::optional<double> change_pct;         // (current - baseline) / baseline
  double worse_pct = 0;                     // > 0: worse by this much, whatever the direction
  double noise_pct = 0;                     // 2 × the larger CV of the two runs
  bool within_noise = false;                // |change| no larger than the noise
  // The spread of this metric over the earlier runs on this host with the same settings
  // (spread_pct_of their medians), when at least kMinRunsForSpread of them are known.
  double drift_pct = 0;
  int drift_runs = 0;
  bool within_drift = false;                // |change| no larger than that spread
  Verdict verdict = Verdict::same;
};

// `earlier`: each metric's medians in earlier runs on this host (BenchFacts::earlier), or null.
std::vector<CompareRow> compare_metrics(const std::vector<BenchMetric>& baseline, const std::vector<BenchMetric>& current,
                                        const CompareLimits& limits, const std::vector<MetricRuns>* earlier = nullptr);
// The earlier runs of `metric`, or null.
const MetricRuns* find_runs(const std::vector<MetricRuns>& earlier, const std::string& metric);
// A compared figure: no decimals from 100, two from 1, four below ("28.77", "1224", "0.1820").
std::string compare_num(double v);
// "29.12 31.4 27 GB/s" (each as compare_num) and "3, 5, 9": the evidence of earlier runs.
std::string medians_text(const std::vector<double>& v, const std::string& unit);
std::string run_ids_text(const std::vector<std::int64_t>& ids);
// "+32.4 %" / "-3.0 %" / "n/a".
std::string format_change(const std::optional<double>& pct);

struct EnvDiff {
  std::string key, baseline, current;
};
// Keys whose values differ or exist on one side only, sorted by key.
std::vector<EnvDiff> environment_diff(const std::map<std::string, std::string>& baseline,
                                      const std::map<std::string, std::string>& current);

// Where to look when a metric family regresses (membw.*, storage.*, h2d.*, ...): the L3 areas
// that can explain it, in both languages.
Text regression_pointers(const std::string& metric);

// plumb check ids (L3 configuration checks) that can explain a regression of the metric family.
std::vector<std::string> regression_l3_ids(const std::string& metric);

// The environment of a run as flat key -> value (kernel, driver, governor, torch, settings) from
// its Facts; what `compare` lists when two runs differ.
std::map<std::string, std::string> run_environment(const Facts& facts);

}  // namespace plumb
