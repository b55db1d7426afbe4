// The program's tables: every collector, rule, finding row, alias, threshold, interface word and
// phrase. A source file that adds rows has one function `<folder>_<file>_tables(Tables&)`, and
// engine/tables.cpp, the one list of them, calls each in turn the first time a table is read. No
// table fills itself during static initialisation.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/catalog.h"
#include "core/i18n.h"
#include "core/phrases.h"
#include "core/registry.h"
#include "core/thresholds.h"

namespace plumb {

struct Tables {
  std::vector<CollectorInfo> collectors;
  std::vector<RuleInfo> rules;
  std::vector<CatalogEntry> findings;
  std::vector<IdAlias> aliases;
  std::vector<ThresholdDef> thresholds;
  std::vector<UiString> ui;
  std::vector<Phrase> phrases;

  void add_collector(CollectorInfo c) { collectors.push_back(std::move(c)); }
  void add_rule(RuleInfo r) { rules.push_back(std::move(r)); }
  void add_alias(std::string from, std::string to, std::string source = {}) {
    aliases.push_back({std::move(from), std::move(to), std::move(source)});
  }
  void add_findings(std::vector<CatalogEntry> rows) { append(findings, std::move(rows)); }
  void add_findings(std::vector<CatalogEntry> (*rows)()) { add_findings(rows()); }
  void add_thresholds(std::vector<ThresholdDef> rows) { append(thresholds, std::move(rows)); }
  void add_thresholds(std::vector<ThresholdDef> (*rows)()) { add_thresholds(rows()); }
  void add_ui(std::vector<UiString> rows) { append(ui, std::move(rows)); }
  void add_ui(std::vector<UiString> (*rows)()) { add_ui(rows()); }
  void add_phrases(std::vector<Phrase> rows) { append(phrases, std::move(rows)); }
  void add_phrases(std::vector<Phrase> (*rows)()) { add_phrases(rows()); }

 private:
  template <class Row>
  static void append(std::vector<Row>& to, std::vector<Row>&& rows) {
    to.insert(to.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
  }
};

// Every row of every table, built at the first call (defined in engine/tables.cpp).
const Tables& tables();

}  // namespace plumb
