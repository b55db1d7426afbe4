// The L3 checks to run after an L2 watch finding: "plumb check --only <ids>".
#pragma once

#include <string>
#include <vector>

namespace plumb {

// L3 rule ids or prefixes worth running next for an L2 watch id: the catalogue rows that list
// it in `explains`, plus the areas that commonly cause it, kept only when some registered rule
// matches them (so the command never names an unknown check).
std::vector<std::string> next_checks(const std::string& l2_id);
// "`plumb check --only a,b`" or "`plumb check`" when nothing specific is registered.
std::string next_checks_command(const std::string& l2_id);

}  // namespace plumb
