// What a scheduler integration says about a judged node in one short line: the worst failing
// finding with its first evidence, cut to a byte budget on a UTF-8 boundary. Shared by the Slurm
// health check (the drain reason) and the node-problem-detector plugin (its status line).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"

namespace plumb {

// Control characters (newlines, tabs, escapes) become spaces and runs of spaces collapse, so the
// text is one line whatever a finding's evidence held.
std::string one_line(std::string_view s);
// The failing findings in report order (section, id, subject).
std::vector<const Finding*> failing(const std::vector<Finding>& findings);
// "<id>: <what> <value>" of a finding ("<id>" alone without evidence), one line.
std::string finding_summary(const Finding& f);

}  // namespace plumb
