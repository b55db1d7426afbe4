// Helpers shared by the distributed-layer rules: the job's NCCL environment with the source of
// each value, and the command that shows it.
#pragma once

#include <map>
#include <string>

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

// GPU count and whether NVLink (counts or NVSwitch devices) is known present.
bool has_nvlink(const Topology& t);

}  // namespace plumb
