// The L3 checks to run after an L2 watch finding: "plumb check --only <ids>".
#pragma once

#include <map>
#include <string>
#include <vector>

namespace plumb {

// L3 rule ids or prefixes worth running next for an L2 watch id: the catalogue rows that list
// it in `explains`, plus the areas that commonly cause it, kept only when some registered rule
// matches them (so the command never names an unknown check).
std::vector<std::string> next_checks(const std::string& l2_id);
// "`plumb check --only a,b`" or "`plumb check`" when nothing specific is registered.
std::string next_checks_command(const std::string& l2_id);

// The hand-written part: per L2 watch id, the L3 ids or id prefixes ("l3.storage") of the areas
// that commonly cause it. Every entry must name at least one catalogue row (a unit test checks).
const std::map<std::string, std::vector<std::string>>& next_check_areas();
// True when `prefix` is a catalogue L3 id or a dotted prefix of one ("l3.storage" matches
// "l3.storage.io_scheduler", never "l3.storage_x").
bool names_l3_rows(const std::string& prefix);

}  // namespace plumb
