// The job's NCCL environment for the distributed rules (environment first, then nccl.conf).
#include "rules/comm_common.h"

#include "collect/nccl_env.h"
#include "core/knowledge/nccl_vars.h"
#include "core/registry.h"

namespace plumb {

Result<std::map<std::string, EnvValue>> job_env(const Facts& f) {
  std::map<std::string, EnvValue> out;
  if (f.comm.env.has()) {
    for (const auto& [k, v] : *f.comm.env) out[k] = {v, f.comm.env.source};
  } else if (f.host.process.environ.has()) {
    for (const auto& [k, v] : distributed_vars(*f.host.process.environ)) out[k] = {v, f.host.process.environ.source};
  } else {
    std::string why = f.comm.env.missing.empty() ? f.host.process.environ.why() : f.comm.env.why();
    return make_error(ErrorKind::absent, "process environment: " + why);
  }
  if (f.comm.nccl_conf.has()) {
    for (const auto& [k, v] : *f.comm.nccl_conf) out.emplace(k, EnvValue{v, f.comm.nccl_conf.source});
  }
  return out;
}

std::string env_command(const Facts& f) {
  if (f.meta.target_pid > 0) {
    return "tr '\\0' '\\n' < /proc/" + std::to_string(f.meta.target_pid) + "/environ | grep -E '^(NCCL|TORCH)_'";
  }
  return "env | grep -E '^(NCCL|TORCH)_'";
}

Finding& with_env_cmd(Finding& x, const Facts& f) { return x.arg("env_cmd", env_command(f)); }

EnvVarRule start_env_var_rule(const Facts& f, const std::string& id, const std::string& var) {
  EnvVarRule r;
  auto env = job_env(f);
  if (!env) {
    r.answer.push_back(skipped(id, env.error().message));
    return r;
  }
  r.x.id = id;
  with_env_cmd(r.x, f);
  auto it = env->find(var);
  if (it == env->end()) {
    r.x.status = Status::pass;
    r.x.variant = "unset";
    r.answer.push_back(r.x);
    return r;
  }
  r.value = it->second;
  return r;
}

Finding* pass_if_empty(std::vector<Finding>& out, const std::string& id, const Facts& f, const std::string& variant) {
  if (!out.empty()) return nullptr;
  Finding x;
  x.id = id;
  x.status = Status::pass;
  x.variant = variant;
  with_env_cmd(x, f);
  out.push_back(std::move(x));
  return &out.back();
}

bool has_nvlink(const Topology& t) {
  if (t.nvswitch_count > 0) return true;
  for (const auto& row : t.nvlinks) {
    for (int n : row) {
      if (n > 0) return true;
    }
  }
  return false;
}

}  // namespace plumb
