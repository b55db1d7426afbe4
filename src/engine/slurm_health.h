// plumb as Slurm's HealthCheckProgram, with node ownership like LBNL NHC: a failing finding
// drains the node with a reason that starts with "plumb:", a healthy run resumes only a node
// whose reason starts with "plumb:", and a node an operator (or Slurm itself) took out of service
// for another reason is never touched. scontrol runs by absolute path, with an argument vector
// and a deadline, and with SLURM_CONF set from --slurm-conf, never from the environment.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "collect/slurm_node.h"
#include "core/finding.h"
#include "core/i18n.h"
#include "core/result.h"

namespace plumb {

inline constexpr std::string_view kPlumbReasonPrefix = "plumb:";
// Slurm stores any length; sinfo -R and sview show the first few dozen characters, and the
// reason is also logged, so plumb keeps it short.
inline constexpr std::size_t kMaxDrainReason = 160;
inline constexpr std::string_view kDefaultSlurmConf = "/etc/slurm/slurm.conf";
// slurmd kills a HealthCheckProgram after 60 s; plumb stops well before.
inline constexpr std::chrono::seconds kDefaultSlurmBudget{45};

// Where scontrol is looked for, in order (never PATH).
const std::vector<std::string>& scontrol_locations();
// --scontrol PATH (absolute, executable) or the first executable of scontrol_locations().
Result<std::string> find_scontrol(const std::string& flag);
// --node NAME, else SLURMD_NODENAME when slurmd set it, else this machine's host name up to the
// first dot (Slurm's default NodeName). Errors: invalid for a name with spaces or '=', which
// would change the meaning of the scontrol arguments.
Result<std::string> slurm_node_name(const std::string& flag);

// "plumb: <id>: <evidence> (+N more)" for the failing findings, at most kMaxDrainReason bytes,
// one line; empty when nothing failed.
std::string drain_reason(const std::vector<Finding>& findings);
bool owned_by_plumb(const SlurmNode& node);

enum class SlurmAction {
  none,        // available and healthy, or already drained by plumb for this very reason
  drain,       // State=DRAIN Reason=...
  reason,      // drained by plumb for another finding: State=DRAIN with the new reason
  resume,      // drained by plumb and healthy now: State=RESUME
  left_alone,  // out of service for a reason plumb did not write: never touched
};
const char* slurm_action_name(SlurmAction a);

struct SlurmDecision {
  SlurmAction action = SlurmAction::none;
  std::string reason;  // the reason to set (drain, reason)
};
// `wanted` is drain_reason() of this run: empty for a healthy node.
SlurmDecision decide_slurm_action(const SlurmNode& node, const std::string& wanted);

struct ScontrolSetup {
  std::string scontrol;    // absolute path
  std::string slurm_conf;  // absolute path, passed as SLURM_CONF
  std::string node;
};
std::vector<std::string> scontrol_show_argv(const ScontrolSetup& s);
// Empty for the actions that need no scontrol update.
std::vector<std::string> scontrol_update_argv(const ScontrolSetup& s, const SlurmDecision& d);
// The command as a shell would need it, for --dry-run and the log: every word that needs quoting
// in single quotes.
std::string shell_command(const std::vector<std::string>& argv, const std::string& slurm_conf);

struct SlurmRun {
  int exit_code = 0;  // 0 applied or nothing to do, 1 the node failed the check, 2 plumb could not act
  SlurmDecision decision;
  std::vector<std::string> lines;  // what plumb did, for stdout (slurmd logs nothing of it)
};
// Reads the node's state with scontrol, decides, and updates it (or prints the update with
// dry_run). Each scontrol call gets at most `budget` (split between the two).
SlurmRun run_slurm_health(const std::vector<Finding>& findings, const ScontrolSetup& s, bool dry_run,
                          std::chrono::milliseconds budget, Lang lang);

}  // namespace plumb
