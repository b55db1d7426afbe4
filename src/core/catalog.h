// The finding catalogue (DCGM's failure-catalogue idea): one row per finding id with its layer,
// pillar, report section, words in both languages, fix, verify command and funnel links.
// docs/findings.md is generated from these rows (`plumb check --list --format md`).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/i18n.h"

namespace plumb {

struct CatalogEntry {
  std::string id;
  Layer layer = Layer::L3;
  Pillar pillar = Pillar::platform;
  Section section = Section::environment;
  Text title;                           // one line: what the check looks at
  std::map<std::string, Text> messages; // variant (default: status name) -> sentence with {args}
  Text fix;                             // how to fix; may use {args}
  std::string verify;                   // a command a human can paste; may use {args}
  Text gain;                            // the expected gain when fixed; may be empty
  std::vector<std::string> explains;    // L3 rows: the L2 finding ids this defect can cause
  // When set, a finding of this row sits in the section of the row its argument of this name
  // names (a symptom's candidate cause is shown with the symptom), else in `section`.
  std::string section_from_arg = {};
};

// The row of an id, or of the id an alias names; nullptr when neither is known.
const CatalogEntry* find_entry(const std::string& id);
const std::map<std::string, CatalogEntry>& catalog();

// An id a finding had before it was renamed or merged into another: `from` keeps working in
// --only/--skip, the config's skip list and saved snapshots, and means `to`. `source`, when set,
// narrows the alias to the rules of `to` that judge that source (`l2.watch.cpu_saturated` is the
// watch recording's judgement of `l2.compute.cpu_saturated`, not the live PSI one).
struct IdAlias {
  std::string from;
  std::string to;
  std::string source;
};
const std::vector<IdAlias>& aliases();
// The current id: `id` itself unless an alias renames it (chains are followed).
std::string canonical_id(const std::string& id);

// The sentence for a finding: its variant's template (falling back to the status name, then
// "fail" for warn) filled with its args.
std::string finding_message(const Finding& f, Lang lang);
std::string finding_fix(const Finding& f, Lang lang);
std::string finding_verify(const Finding& f);
std::string finding_gain(const Finding& f, Lang lang);
// L3 ids whose rows say they explain this L2 id (the reverse funnel link).
std::vector<std::string> l3_causes_of(const std::string& l2_id);

}  // namespace plumb
