// Helpers shared by the distributed-layer rules: the job's NCCL environment with the source of
// each value, and the command that shows it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/facts.h"
#include "core/finding.h"
#include "core/result.h"

namespace plumb {

struct EnvValue {
  std::string value;
  std::string source;  // "/proc/1234/environ" or "/etc/nccl.conf"
};

// The distributed variables the job sees: its environment (comm.env, else the host's environ
// contract), then /etc/nccl.conf for names the environment leaves unset (NCCL's precedence).
Result<std::map<std::string, EnvValue>> job_env(const Facts& f);

// A command a human can paste to list the job's distributed variables.
std::string env_command(const Facts& f);

// Fills args["env_cmd"] for the verify templates.
Finding& with_env_cmd(Finding& x, const Facts& f);

// The start of a rule about one variable of the job's environment.
struct EnvVarRule {
  Finding x;                      // the rule's finding, with its id and env_cmd
  std::optional<EnvValue> value;  // the variable as the job sees it; none when `answer` is set
  std::vector<Finding> answer;    // not empty: the rule's whole answer (skipped: no environment; pass "unset")
};
EnvVarRule start_env_var_rule(const Facts& f, const std::string& id, const std::string& var);

// Where a rule found nothing in the job's environment: one pass finding (with `variant`, if any)
// in `out`, returned for further arguments; nullptr when `out` already holds findings.
Finding* pass_if_empty(std::vector<Finding>& out, const std::string& id, const Facts& f, const std::string& variant = "");

// GPU count and whether NVLink (counts or NVSwitch devices) is known present.
bool has_nvlink(const Topology& t);

}  // namespace plumb
