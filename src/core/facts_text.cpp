#include "core/facts_text.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "core/json.h"
#include "core/text.h"

namespace plumb {

struct FactsText::Area {
  bool printed = false;
  std::string report;   // dump_text(value, 2), every line after the first four spaces further in
  std::string compact;  // dump_text(value); builds with assertions compare it with the area at each use
};

namespace {

struct AreaDef {
  std::string_view key;
  json (*convert)(const Facts&);
};

// One entry per member named in PLUMB_FACTS_AREAS (core/facts.h), the list the JSON conversion of
// Facts is generated from, so the two cannot disagree.
#define PLUMB_FACTS_AREA(field) AreaDef{#field, [](const Facts& f) { return json(f.field); }},
const std::vector<AreaDef>& area_defs() {
  static const std::vector<AreaDef> defs = [] {
    std::vector<AreaDef> d{NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(PLUMB_FACTS_AREA, PLUMB_FACTS_AREAS))};
    std::sort(d.begin(), d.end(), [](const AreaDef& a, const AreaDef& b) { return a.key < b.key; });
    return d;
  }();
  return defs;
}
#undef PLUMB_FACTS_AREA


// A value printed with indent 2 as it sits one level into the facts object: a JSON text has no
// raw newline inside a string, so every newline starts a line of the value.
std::string report_form(const json& j) { return indent_lines(dump_text(j, 2), "    "); }

}  // namespace

const std::vector<std::string>& facts_areas() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& d : area_defs()) n.emplace_back(d.key);
    return n;
  }();
  return names;
}

FactsText::FactsText() = default;
FactsText::~FactsText() = default;
FactsText::FactsText(FactsText&&) noexcept = default;
FactsText& FactsText::operator=(FactsText&&) noexcept = default;

void FactsText::prepare(const Facts& f, const std::set<std::string>& later) {
  const auto& defs = area_defs();
  for (const auto& name : later) {
    if (std::none_of(defs.begin(), defs.end(), [&](const AreaDef& d) { return d.key == name; })) {
      throw std::invalid_argument("no facts area named '" + name + "'");
    }
  }
  std::vector<Area> areas(defs.size());
  for (std::size_t i = 0; i < defs.size(); ++i) {
    if (later.count(std::string(defs[i].key)) != 0) continue;
    Area& a = areas[i];
    a.printed = true;
    const json value = defs[i].convert(f);
    a.report = report_form(value);
    a.compact = dump_text(value, -1);
  }
  areas_ = std::move(areas);
}

bool FactsText::prepared() const { return !areas_.empty(); }

const FactsText::Area* FactsText::area(std::size_t i, const Facts& f) const {
  if (areas_.empty() || !areas_[i].printed) return nullptr;
#ifndef NDEBUG
  if (dump_text(area_defs()[i].convert(f), -1) != areas_[i].compact) {
    throw std::logic_error("facts area '" + std::string(area_defs()[i].key) +
                           "' changed after it was printed (a collector writes an area it does not declare?)");
  }
#else
  (void)f;
#endif
  return &areas_[i];
}

std::string FactsText::report_text(const Facts& f) const { return joined(f, true); }

std::string FactsText::compact_text(const Facts& f) const { return joined(f, false); }

std::string FactsText::joined(const Facts& f, bool report) const {
  const auto& defs = area_defs();
  std::vector<std::string> late(defs.size());
  std::vector<const std::string*> parts(defs.size());
  std::size_t size = 8;
  for (std::size_t i = 0; i < defs.size(); ++i) {
    const Area* a = area(i, f);
    if (a == nullptr) late[i] = report ? report_form(defs[i].convert(f)) : dump_text(defs[i].convert(f), -1);
    parts[i] = a == nullptr ? &late[i] : report ? &a->report : &a->compact;
    size += defs[i].key.size() + parts[i]->size() + 10;
  }
  // The report's keys sit four spaces in, one per line; the compact form has no white space.
  const char* before_key = report ? "\n    \"" : "\"";
  const char* after_key = report ? "\": " : "\":";
  std::string out;
  out.reserve(size);
  out += '{';
  for (std::size_t i = 0; i < defs.size(); ++i) {
    if (i > 0) out += ',';
    out += before_key;
    out += defs[i].key;
    out += after_key;
    out += *parts[i];
  }
  out += report ? "\n  }" : "}";
  return out;
}

}  // namespace plumb
