// The facts as JSON text, printed one area (a top-level key: host, gpu, framework...) at a time.
// `plumb check` prints the areas no slow collector writes while the slow ones (the framework
// probe's interpreter) still run, and only the rest once they end; the joined text is byte for
// byte what the JSON library prints for the whole Facts.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "core/facts.h"
#include "core/json_fwd.h"

namespace plumb {

// The names of the areas, sorted (the order of the keys in the JSON object).
const std::vector<std::string>& facts_areas();

class FactsText {
 public:
  FactsText();
  ~FactsText();
  FactsText(FactsText&&) noexcept;
  FactsText& operator=(FactsText&&) noexcept;
  FactsText(const FactsText&) = delete;
  FactsText& operator=(const FactsText&) = delete;

  // Prints every area of `f` except those named in `later` now; the texts below print `later`
  // from the facts they are given. The areas printed now must not change afterwards: builds with
  // assertions (debug, sanitizers) compare them at each use and throw std::logic_error if they did.
  // A name that is no area throws std::invalid_argument.
  void prepare(const Facts& f, const std::set<std::string>& later);
  bool prepared() const;
  // The facts object as the JSON report holds it (json::dump with indent 2, the object one level
  // into the document: its keys four spaces in, its closing brace two).
  std::string report_text(const Facts& f) const;
  // json(f).dump() with no indent, as the history database stores it.
  std::string compact_text(const Facts& f) const;

 private:
  struct Area;
  std::vector<Area> areas_;  // empty until prepare(): every area is then printed from `f`
  // Area i of the sorted list when it was printed early (checked against `f` where assertions
  // are on), else null.
  const Area* area(std::size_t i, const Facts& f) const;
  // The facts object in the report's form or the compact one.
  std::string joined(const Facts& f, bool report) const;
};

}  // namespace plumb
