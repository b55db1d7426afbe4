// JSON report: schema_version, tool, run summary, facts and findings (snake_case keys,
// documented in docs/json-schema.md). It is also the snapshot format.
#include <string>
#include <vector>

#include "core/catalog.h"
#include "core/json.h"
#include "core/text.h"
#include "report/counts.h"
#include "report/report.h"

namespace plumb {

namespace {

json finding_object(const Finding& f, const RenderOptions& o) {
  json j = f;
  const CatalogEntry* e = find_entry(f.id);
  if (e != nullptr) {
    j["layer"] = layer_name(e->layer);
    j["pillar"] = pillar_name(e->pillar);
    j["section"] = section_name(section_of(f));
    j["title"] = e->title.in(o.lang);
    j["explains"] = e->explains;
    j["check_next"] = l3_causes_of(f.id);
  }
  j["message"] = finding_message(f, o.lang);
  j["fix"] = finding_fix(f, o.lang);
  j["verify"] = finding_verify(f);
  j["gain"] = finding_gain(f, o.lang);
  return j;
}


}  // namespace

std::string render_json_text(const Report& r, const RenderOptions& o) {
  json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["tool"] = {{"name", "plumb"}, {"version", plumb_version()}};
  doc["lang"] = lang_code(o.lang);
  Tally t = tally(r.findings);
  doc["summary"] = {{"fail", t.fail}, {"warn", t.warn}, {"skip", t.skip}, {"info", t.info}, {"pass", t.pass},
                    {"exit_code", exit_code_for(r.findings)}};
  if (const Finding* d = diagnose_verdict_of(r)) {  // plumb diagnose: infrastructure, not-infrastructure, ...
    auto it = d->args.find("verdict");
    if (it != d->args.end()) doc["summary"]["verdict"] = it->second;
  }
  doc["facts"] = r.facts;
  json& findings = doc["findings"] = json::array();
  for (const Finding* f : ordered(r.findings)) findings.push_back(finding_object(*f, o));
  return dump_text(doc, 2) + "\n";
}

void report_render_json_tables(ReportTables& r) {
  r.add_renderer({"json", [](const Report& r, const RenderOptions& o) { return render_json_text(r, o); }});
}

}  // namespace plumb
