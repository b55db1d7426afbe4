// Prometheus metrics of a judged report: one gauge per finding with its status, counts by status,
// collector success and duration, run time. Implemented in report/render_prom.cpp.
#pragma once

#include "report/report.h"
#include "report/prom_text.h"

namespace plumb::watch {

void add_report_metrics(prom::Exposition& out, const Report& r);

}  // namespace plumb::watch
