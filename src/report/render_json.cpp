// JSON report: schema_version, tool, run summary, facts and findings (snake_case keys,
// documented in docs/json-schema.md). It is also the snapshot format.
#include <stdexcept>

#include "core/catalog.h"
#include "core/json.h"
#include "report/report.h"

namespace plumb {

std::string render_json_text(const Report& r, const RenderOptions& o) {
  json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["tool"] = {{"name", "plumb"}, {"version", plumb_version()}};
  doc["lang"] = lang_code(o.lang);
  Tally t = tally(r.findings);
  doc["summary"] = {{"fail", t.fail}, {"warn", t.warn}, {"skip", t.skip}, {"info", t.info}, {"pass", t.pass},
                    {"exit_code", exit_code_for(r.findings)}};
  doc["facts"] = r.facts;
  json arr = json::array();
  for (const Finding* f : ordered(r.findings)) {
    json j = *f;
    const CatalogEntry* e = find_entry(f->id);
    if (e != nullptr) {
      j["layer"] = layer_name(e->layer);
      j["pillar"] = pillar_name(e->pillar);
      j["section"] = section_name(e->section);
      j["title"] = e->title.in(o.lang);
      j["explains"] = e->explains;
      j["check_next"] = l3_causes_of(f->id);
    }
    j["message"] = finding_message(*f, o.lang);
    j["fix"] = finding_fix(*f, o.lang);
    j["verify"] = finding_verify(*f);
    j["gain"] = finding_gain(*f, o.lang);
    arr.push_back(std::move(j));
  }
  doc["findings"] = std::move(arr);
  // Values read from the machine (environ, sysfs) may hold invalid UTF-8: replace, never throw.
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<Facts> facts_from_snapshot(const std::string& text, const std::string& origin) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return make_error(ErrorKind::invalid, origin + ": not valid JSON");
  if (!doc.is_object() || !doc.contains("facts")) {
    return make_error(ErrorKind::invalid, origin + ": not a plumb snapshot (no \"facts\" object)");
  }
  if (doc.contains("schema_version") && doc["schema_version"] != kSchemaVersion) {
    return make_error(ErrorKind::invalid, origin + ": snapshot schema_version " + doc["schema_version"].dump() +
                                              " is not " + std::to_string(kSchemaVersion));
  }
  try {
    return doc.at("facts").get<Facts>();
  } catch (const std::exception& e) {
    return make_error(ErrorKind::invalid, origin + ": malformed facts (" + e.what() + ")");
  }
}

namespace {
const bool kRenderJsonRegistered = register_renderer({"json", render_json_text});
}  // namespace

}  // namespace plumb
