// Text and Markdown views of benchmark results and baseline comparisons (tables with median,
// min, max, CV, the context block, sweep rows) plus a compact list of the judged findings.
#pragma once

#include <string>
#include <vector>

#include "bench/compare.h"
#include "core/facts.h"
#include "core/finding.h"
#include "core/i18n.h"

namespace plumb {

// The metric table alone (median, min, max, CV, samples, unit).
std::string render_metric_table(const std::vector<BenchMetric>& metrics, Lang lang, bool markdown);
std::string render_bench_results(const Facts& facts, const std::vector<Finding>& findings, Lang lang, bool markdown);
// Findings one after the other, with evidence, fix and verify for warnings and failures.
std::string render_findings_compact(const std::vector<Finding>& findings, Lang lang, bool markdown);

struct CompareView {
  std::string baseline_label, current_label;
  std::vector<CompareRow> rows;
  std::vector<EnvDiff> env;
  std::vector<Finding> findings;
};
std::string render_compare(const CompareView& v, Lang lang, bool markdown);
std::string compare_json(const CompareView& v);

}  // namespace plumb
