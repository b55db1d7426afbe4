// `--format prom`: the Prometheus text exposition of a report, for node_exporter's textfile
// collector (`plumb check --format prom --out /var/lib/node_exporter/plumb.prom`, written
// atomically) and for `plumb exporter`. Watch samples in the report add their last readings.
#include <ctime>
#include <map>

#include "core/catalog.h"
#include "core/iso_time.h"
#include "report/prom_report_metrics.h"
#include "report/prom_sample_metrics.h"

namespace plumb {

namespace watch {

namespace {
std::optional<double> epoch_of(const std::string& iso) {
  auto t = parse_iso8601(iso);
  if (!t) return std::nullopt;
  return static_cast<double>(*t);
}
}  // namespace

void add_report_metrics(prom::Exposition& out, const Report& r) {
  const auto& m = r.facts.meta;
  out.gauge("plumb_build_info", "prom.help.plumb_build_info",
            {{"version", plumb_version()}, {"hostname", m.hostname.empty() ? "unknown" : m.hostname}}, 1);
  // One series per finding, at most kSubjectsPerId of one id (worst first): its subjects come from
  // the machine (an environment may hold 20,000 NCCL_* variables), the ids from the catalogue.
  constexpr int kSubjectsPerId = 32;
  std::map<std::string, int> per_id;
  for (const Finding* f : ordered(r.findings)) {
    if (++per_id[f->id] > kSubjectsPerId) continue;
    const CatalogEntry* e = find_entry(f->id);
    out.gauge("plumb_finding_status", "prom.help.plumb_finding_status",
              {{"id", f->id},
               {"layer", e != nullptr ? layer_name(e->layer) : "unknown"},
               {"pillar", e != nullptr ? pillar_name(e->pillar) : "unknown"},
               {"subject", f->subject},
               {"status", status_name(f->status)}},
              1);
  }
  for (const auto& [id, n] : per_id) {
    if (n > kSubjectsPerId) {
      out.gauge("plumb_finding_subjects_dropped", "prom.help.plumb_finding_subjects_dropped", {{"id", id}}, n - kSubjectsPerId);
    }
  }
  Tally t = tally(r.findings);
  for (auto [name, n] : {std::pair{"fail", t.fail}, std::pair{"warn", t.warn}, std::pair{"skip", t.skip},
                         std::pair{"info", t.info}, std::pair{"pass", t.pass}}) {
    out.gauge("plumb_findings", "prom.help.plumb_findings", {{"status", name}}, n);
  }
  out.gauge("plumb_check_exit_code", "prom.help.plumb_check_exit_code", {}, exit_code_for(r.findings));
  out.gauge("plumb_check_duration_seconds", "prom.help.plumb_check_duration_seconds", {}, m.duration_ms / 1000.0);
  if (auto ts = epoch_of(m.started_at)) out.gauge("plumb_check_timestamp_seconds", "prom.help.plumb_check_timestamp_seconds", {}, *ts);
  for (const auto& c : m.collectors) {
    out.gauge("plumb_collector_success", "prom.help.plumb_collector_success", {{"collector", c.id}}, c.status == "ok" ? 1 : 0);
  }
  for (const auto& c : m.collectors) {
    out.gauge("plumb_collector_duration_seconds", "prom.help.plumb_collector_duration_seconds", {{"collector", c.id}},
              c.duration_ms / 1000.0);
  }
}

}  // namespace watch

namespace {

std::string render_prom(const Report& r, const RenderOptions& o) {
  prom::Exposition out(o.lang);
  watch::add_report_metrics(out, r);
  const auto& w = r.facts.watch;
  if (w.collected && !w.samples.empty()) watch::add_sample_metrics(out, w, w.samples.back());
  return out.str();
}


}  // namespace
void report_render_prom_tables(ReportTables& r) {
  r.add_renderer({"prom", render_prom});
}

}  // namespace plumb
