// NCCL environment collector: the target's distributed variables, /etc/nccl.conf (NCCL applies
// it under the environment) and the NCCL_TOPO_FILE it points to (read through the root).
#include "collect/process.h"
#include "collect/nccl_env.h"

#include "collect/nccl_topo_xml.h"
#include "core/knowledge/nccl_vars.h"
#include "core/registry.h"
#include "core/host_root.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {


std::map<std::string, std::string> distributed_vars(const std::map<std::string, std::string>& env) {
  static const char* kExtra[] = {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "MASTER_ADDR", "MASTER_PORT",
                                 "WORLD_SIZE", "LOCAL_WORLD_SIZE", "RANK", "LOCAL_RANK"};
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : env) {
    bool keep = is_audited_var(k);
    for (const char* e : kExtra) keep = keep || k == e;
    if (keep) out[k] = v;
  }
  return out;
}

std::map<std::string, std::string> parse_nccl_conf(std::string_view text) {
  std::map<std::string, std::string> out;
  for (auto line : split_lines(text)) {
    auto l = trim(line);
    if (l.empty() || l.front() == '#') continue;
    auto eq = l.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    std::string key(trim(l.substr(0, eq)));
    std::string val(trim(l.substr(eq + 1)));
    if (val.size() >= 2 && (val.front() == '"' || val.front() == '\'') && val.back() == val.front()) {
      val = val.substr(1, val.size() - 2);
    }
    out[key] = val;
  }
  return out;
}

namespace {

}  // namespace

void collect_nccl_env_tables(Tables& t) {
  t.add_collector(
    {"collect.nccl_env",
     {"NCCL and torch.distributed environment, nccl.conf, NCCL_TOPO_FILE", "NCCL 与 torch.distributed 环境变量、nccl.conf、NCCL_TOPO_FILE"},
     [](const Context& ctx) -> ApplyFacts {
       std::string src = ctx.proc_dir() + "/environ";
       auto raw = ctx.root.read(src);
       Fact<std::map<std::string, std::string>> env =
           raw ? Fact<std::map<std::string, std::string>>::of(distributed_vars(parse_environ(*raw)), src)
               : Fact<std::map<std::string, std::string>>::none(raw.error().describe(), src);
       Fact<std::map<std::string, std::string>> conf;
       if (auto c = ctx.root.read("/etc/nccl.conf")) {
         conf = Fact<std::map<std::string, std::string>>::of(parse_nccl_conf(*c), "/etc/nccl.conf");
       } else {
         conf = Fact<std::map<std::string, std::string>>::none(c.error().describe(), "/etc/nccl.conf");
       }
       // The file NCCL will load: the environment wins over nccl.conf, then NCCL's default path.
       std::string path;
       if (env.has() && env->count("NCCL_TOPO_FILE")) path = env->at("NCCL_TOPO_FILE");
       else if (conf.has() && conf->count("NCCL_TOPO_FILE")) path = conf->at("NCCL_TOPO_FILE");
       Fact<NcclTopoXml> topo;
       if (path.empty() && ctx.root.exists(kNcclDefaultTopoFile)) path = kNcclDefaultTopoFile;
       if (path.empty()) {
         topo = Fact<NcclTopoXml>::none("NCCL_TOPO_FILE not set");
       } else if (path.front() != '/') {
         topo = Fact<NcclTopoXml>::none("relative path: resolved against the job's working directory, which plumb does not know", path);
       } else if (auto text = ctx.root.read(path)) {
         auto parsed = parse_nccl_topo_xml(*text);
         topo = parsed ? Fact<NcclTopoXml>::of(*parsed, path) : Fact<NcclTopoXml>::none(parsed.error().message, path);
       } else {
         topo = Fact<NcclTopoXml>::none(text.error().describe(), path);
       }
       return [env, conf, topo](Facts& f) {
         f.comm.collected = true;
         f.comm.env = env;
         f.comm.nccl_conf = conf;
         f.comm.topo_file = topo;
       };
     }});
}

}  // namespace plumb
