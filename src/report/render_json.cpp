// JSON report: schema_version, tool, run summary, facts and findings (snake_case keys,
// documented in docs/json-schema.md). It is also the snapshot format.
#include <stdexcept>
#include <string>
#include <vector>

#include "core/catalog.h"
#include "core/facts_text.h"
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

std::string finding_json_text(const Finding& f, const RenderOptions& o) {
  // The array's items sit four spaces in; a JSON text has no raw newline inside a string, so
  // every newline starts a line of the item.
  return indent_lines(dump_text(finding_object(f, o), 2), "    ", "    ");
}

std::string render_json_text(const Report& r, const RenderOptions& o) { return render_json_text(r, o, PreparedJson{}); }

std::string render_json_text(const Report& r, const RenderOptions& o, const PreparedJson& prepared) {
  const auto& converted = prepared.findings;
  json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["tool"] = {{"name", "plumb"}, {"version", plumb_version()}};
  doc["lang"] = lang_code(o.lang);
  Tally t = tally(r.findings);
  doc["summary"] = {{"fail", t.fail}, {"warn", t.warn}, {"skip", t.skip}, {"info", t.info}, {"pass", t.pass},
                    {"exit_code", exit_code_for(r.findings)}};
  const std::string rest = dump_text(doc, 2);
  // "facts" and "findings" go before "lang" (keys in order), as the JSON library would print them:
  // the document's second level is two spaces in, so "\n  \"lang\": " is that key's line.
  const auto at = rest.find("\n  \"lang\": ");
  if (at == std::string::npos) throw std::logic_error("JSON report without its lang key");
  const std::string facts = prepared.facts != nullptr ? prepared.facts->report_text(r.facts) : FactsText{}.report_text(r.facts);
  // The findings not converted beforehand, then the text in one piece of the size it needs (a
  // document of a few hundred kilobytes: copied once, not at every doubling).
  const auto list = ordered(r.findings);
  std::vector<std::string> here(list.size());
  std::vector<const std::string*> texts(list.size());
  std::size_t size = rest.size() + facts.size() + 64;
  for (std::size_t k = 0; k < list.size(); ++k) {
    auto i = static_cast<std::size_t>(list[k] - r.findings.data());
    if (i < converted.size() && converted[i] != nullptr) {
      texts[k] = converted[i];
    } else {
      here[k] = finding_json_text(*list[k], o);
      texts[k] = &here[k];
    }
    size += texts[k]->size() + 2;
  }
  std::string text;
  text.reserve(size);
  text.append(rest, 0, at);
  text += "\n  \"facts\": ";
  text += facts;
  text += ",\n  \"findings\": [";
  for (std::size_t k = 0; k < texts.size(); ++k) {
    text += k == 0 ? "\n" : ",\n";
    text += *texts[k];
  }
  text += list.empty() ? "]," : "\n  ],";
  text.append(rest, at);
  text += "\n";
  return text;
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
const bool kRenderJsonRegistered = register_renderer({"json", [](const Report& r, const RenderOptions& o) { return render_json_text(r, o); }});
}  // namespace

}  // namespace plumb
