// Prometheus metrics of one watch sample (GPU, host, target process), shared by `plumb exporter`
// and `plumb check --format prom` (when the report holds watch samples).
#pragma once

#include "core/facts/watch.h"
#include "report/prom_text.h"

namespace plumb::watch {

void add_sample_metrics(prom::Exposition& out, const WatchFacts& w, const WatchSample& s);

}  // namespace plumb::watch
