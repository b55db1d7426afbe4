// Benchmark blocks of the text reports (registered for the baseline section: each result's
// tables and context, the comparison with the baseline) and the metric table alone.
#pragma once

#include <string>
#include <vector>

#include "bench/compare.h"
#include "core/facts.h"
#include "core/i18n.h"

namespace plumb {

// The metric table alone (median, min, max, CV, samples, unit) as "term", "md" or "html".
std::string render_metric_table(const std::vector<BenchMetric>& metrics, Lang lang, const std::string& format);

}  // namespace plumb
