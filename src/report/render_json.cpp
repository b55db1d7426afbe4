// JSON report: schema_version, tool, run summary, facts and findings (snake_case keys,
// documented in docs/json-schema.md). It is also the snapshot format.
#include <stdexcept>
#include <string>
#include <vector>

#include "core/catalog.h"
#include "core/json.h"
#include "core/text.h"
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
  doc["facts"] = r.facts;
  json& findings = doc["findings"] = json::array();
  for (const Finding* f : ordered(r.findings)) findings.push_back(finding_object(*f, o));
  return dump_text(doc, 2) + "\n";
}

Result<Facts> facts_from_snapshot(const std::string& text, const std::string& origin) {
  auto parsed = parse_outside_json(text);
  if (!parsed) return make_error(ErrorKind::invalid, origin + ": " + parsed.error().message);
  json& doc = *parsed;
  if (!doc.is_object() || !doc.contains("facts")) {
    return make_error(ErrorKind::invalid, origin + ": not a plumb snapshot (no \"facts\" object)");
  }
  if (doc.contains("schema_version") && doc["schema_version"] != kSchemaVersion) {
    // A number is named; anything else (a string of any length, an array) by its type.
    const json& v = doc["schema_version"];
    return make_error(ErrorKind::invalid, origin + ": snapshot schema_version " +
                                              (v.is_number() ? v.dump() : std::string("of type ") + v.type_name()) +
                                              " is not " + std::to_string(kSchemaVersion));
  }
  try {
    return doc.at("facts").get<Facts>();
  } catch (const std::exception& e) {
    return make_error(ErrorKind::invalid, origin + ": malformed facts (" + e.what() + ")");
  }
}

namespace {

}  // namespace

void report_render_json_tables(ReportTables& r) {
  r.add_renderer({"json", [](const Report& r, const RenderOptions& o) { return render_json_text(r, o); }});
}

}  // namespace plumb
