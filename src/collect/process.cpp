// Process collector: environ, limits (memlock, nofile) and status (threads, RSS, CPU affinity) of the target.
#include "collect/process.h"

#include "collect/pid_status.h"
#include "core/cpulist.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

std::map<std::string, std::string> parse_environ(std::string_view text) {
  std::map<std::string, std::string> env;
  for (auto rec : split(text, '\0')) {
    auto eq = rec.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    env.emplace(std::string(rec.substr(0, eq)), std::string(rec.substr(eq + 1)));
  }
  return env;
}

std::map<std::string, ResourceLimit> parse_limits(std::string_view text) {
  std::map<std::string, ResourceLimit> out;
  auto value = [](std::string_view v, bool& ok) -> std::optional<std::uint64_t> {
    if (v == "unlimited") return std::nullopt;
    auto n = parse_uint(v);
    ok = ok && n.has_value();
    return n;
  };
  for (auto line : split_lines(text)) {
    auto f = split_ws(line);
    if (f.size() < 3 || f[0] == "Limit") continue;
    // Names contain spaces ("Max locked memory"); the numbers are the last two or three fields.
    // Find the first field that is a number or "unlimited": the soft limit.
    std::size_t i = 0;
    while (i < f.size() && f[i] != "unlimited" && !parse_uint(f[i])) ++i;
    if (i == 0 || i + 1 >= f.size()) continue;
    bool ok = true;
    ResourceLimit l;
    l.soft = value(f[i], ok);
    l.hard = value(f[i + 1], ok);
    if (!ok || f.size() > i + 3) continue;
    if (i + 2 < f.size()) l.unit = std::string(f[i + 2]);
    std::string name;
    for (std::size_t k = 0; k < i; ++k) {
      if (k > 0) name += ' ';
      name.append(f[k]);
    }
    out[name] = l;
  }
  return out;
}

ProcessFacts read_process(const Context& ctx) {
  ProcessFacts p;
  p.collected = true;
  const HostRoot& root = ctx.root;
  const std::string dir = ctx.proc_dir();

  std::string env_src = dir + "/environ";
  auto env = root.read(env_src, 8u << 20);
  p.environ = env ? Fact<std::map<std::string, std::string>>::of(parse_environ(*env), env_src)
                  : Fact<std::map<std::string, std::string>>::none(env.error().describe(), env_src);

  std::string lim_src = dir + "/limits";
  auto lim = root.read(lim_src);
  if (lim) {
    auto rows = parse_limits(*lim);
    auto get = [&](const char* name) {
      auto it = rows.find(name);
      return it == rows.end() ? Fact<ResourceLimit>::none(std::string("no '") + name + "' row", lim_src)
                              : Fact<ResourceLimit>::of(it->second, lim_src);
    };
    p.memlock = get("Max locked memory");
    p.nofile = get("Max open files");
  } else {
    p.memlock = p.nofile = Fact<ResourceLimit>::none(lim.error().describe(), lim_src);
  }

  std::string st_src = dir + "/status";
  auto st = root.read(st_src);
  if (st) {
    PidStatus ps = parse_pid_status(*st);
    auto str = [&](const char* k) {
      auto it = ps.fields.find(k);
      return it == ps.fields.end() ? Fact<std::string>::none(std::string(k) + " not in status", st_src)
                                   : Fact<std::string>::of(it->second, st_src);
    };
    p.name = str("Name");
    p.cpus_allowed_list = str("Cpus_allowed_list");
    if (ps.threads) {
      p.threads = Fact<int>::of(*ps.threads, st_src);
    } else {
      p.threads = Fact<int>::none(ps.fields.count("Threads") != 0 ? "Threads not a number" : "Threads not in status", st_src);
    }
    if (ps.rss_bytes) {
      p.vm_rss_bytes = Fact<std::uint64_t>::of(*ps.rss_bytes, st_src);
    } else {
      // Kernel threads have no VmRSS line.
      p.vm_rss_bytes = Fact<std::uint64_t>::none(ps.fields.count("VmRSS") != 0 ? "VmRSS not 'N kB'" : "VmRSS not in status", st_src);
    }
    if (p.cpus_allowed_list.has()) {
      auto l = parse_cpulist(*p.cpus_allowed_list);
      p.cpus_allowed = l ? Fact<int>::of(static_cast<int>(l->size()), st_src)
                         : Fact<int>::none("Cpus_allowed_list not a CPU list", st_src);
    } else {
      p.cpus_allowed = Fact<int>::none(p.cpus_allowed_list.why(), st_src);
    }
  } else {
    auto why = st.error().describe();
    p.name = p.cpus_allowed_list = Fact<std::string>::none(why, st_src);
    p.threads = p.cpus_allowed = Fact<int>::none(why, st_src);
    p.vm_rss_bytes = Fact<std::uint64_t>::none(why, st_src);
  }
  return p;
}

namespace {

}  // namespace

void collect_process_tables(Tables& t) {
  t.add_collector({"collect.process",
                                            {"Target process: environment, resource limits, status",
                                             "目标进程：环境变量、资源限制、状态"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              ProcessFacts p = read_process(ctx);
                                              return [p](Facts& f) { f.host.process = p; };
                                            }});
}

Fact<bool> process_running(const HostRoot& root, std::string_view comm) {
  const std::string shown = "/proc/*/comm";  // display form of the paths read through root
  auto procs = root.list("/proc");
  if (!procs) return Fact<bool>::none(procs.error().describe(), shown);
  for (const auto& pid : *procs) {
    if (pid.empty() || pid[0] < '0' || pid[0] > '9') continue;
    const std::string comm_path = "/proc/" + pid + "/comm";  // read through root below
    auto c = root.read_value(comm_path);
    if (c && *c == comm) return Fact<bool>::of(true, comm_path);
  }
  return Fact<bool>::of(false, shown);
}

}  // namespace plumb
