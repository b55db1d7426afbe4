// `scontrol show node NAME` (one-line `-o` or the multi-line form) parsed into what the Slurm
// health check needs: the node's name, state and the reason it is unavailable. Pure; the format
// is Slurm's src/api/node_info.c (slurm_sprint_node_table), checked against Slurm 22.05.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace plumb {

struct SlurmNode {
  std::string name;        // NodeName=
  std::string state;       // State= as printed: "IDLE+DRAIN", "DOWN+NOT_RESPONDING", "MIXED"
  std::string base_state;  // before the first '+': IDLE, ALLOCATED, MIXED, DOWN, FUTURE, ...
  std::vector<std::string> flags;  // after it: DRAIN, NOT_RESPONDING, COMPLETING, FAIL, ...
  std::string reason;      // Reason= without the " [user@time]" stamp; empty when none
  std::string reason_by;   // the "user" of that stamp, when printed

  // The node takes no new work: drained or draining, down, or failing.
  [[nodiscard]] bool unavailable() const;
  [[nodiscard]] bool has_flag(std::string_view f) const;
};

// Every node record in the text (a record starts at each NodeName=). Errors: invalid when the
// text holds no NodeName= at all.
Result<std::vector<SlurmNode>> parse_scontrol_nodes(std::string_view text);
// The record named `name` (first record when the text holds exactly one and name is empty).
Result<SlurmNode> parse_scontrol_node(std::string_view text, const std::string& name);

}  // namespace plumb
