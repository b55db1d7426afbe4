// cgroup v1 and v2 of the target process (/proc/<pid>/cgroup -> its directory under
// /sys/fs/cgroup). Limits are hierarchical, so the memory and CPU limits are the smallest ones on
// the way from the target's cgroup up to the mount root (Documentation/admin-guide/cgroup-v2.rst).
#include "collect/cgroup.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "core/cpulist.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {
constexpr const char* kCgroupMount = "/sys/fs/cgroup";  // always read through ctx.root
// v1 prints "unlimited" as LONG_MAX rounded down to the page size; anything this large is no limit.
constexpr std::uint64_t kUnlimitedFloor = std::uint64_t{1} << 62;
}  // namespace

std::vector<CgroupMembership> parse_proc_cgroup(std::string_view text) {
  std::vector<CgroupMembership> out;
  for (auto raw : split_lines(text)) {
    std::string_view line = trim(raw);
    if (line.empty()) continue;
    auto c1 = line.find(':');
    if (c1 == std::string_view::npos) continue;
    auto c2 = line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    CgroupMembership m;
    m.hierarchy = std::string(line.substr(0, c1));
    if (!parse_uint(m.hierarchy)) continue;
    std::string_view ctrls = line.substr(c1 + 1, c2 - c1 - 1);
    if (!ctrls.empty()) {
      for (auto c : split(ctrls, ',')) {
        if (!c.empty()) m.controllers.emplace_back(c);
      }
    }
    std::string_view path = line.substr(c2 + 1);
    constexpr std::string_view kDeleted = " (deleted)";
    if (path.size() >= kDeleted.size() && path.substr(path.size() - kDeleted.size()) == kDeleted) {
      path.remove_suffix(kDeleted.size());
    }
    if (path.empty() || path.front() != '/') continue;
    m.path = std::string(path);
    out.push_back(std::move(m));
  }
  return out;
}

Result<CgroupLimit> parse_memory_limit(std::string_view text) {
  std::string_view v = trim(text);
  if (v == "max") return CgroupLimit{std::nullopt};
  auto n = parse_uint(v);
  if (!n) {
    // v1 can print -1 for "unlimited" when written by hand on some kernels.
    if (v == "-1") return CgroupLimit{std::nullopt};
    return make_error(ErrorKind::invalid, "not a byte count or 'max': '" + std::string(v.substr(0, 40)) + "'");
  }
  if (*n >= kUnlimitedFloor) return CgroupLimit{std::nullopt};
  return CgroupLimit{*n};
}

Result<std::optional<double>> parse_cpu_max(std::string_view text) {
  auto f = split_ws(trim(text));
  if (f.empty() || f.size() > 2) return make_error(ErrorKind::invalid, "cpu.max is not '$MAX $PERIOD'");
  std::uint64_t period = 100000;  // the kernel default when only $MAX is written
  if (f.size() == 2) {
    auto p = parse_uint(f[1]);
    if (!p || *p == 0) return make_error(ErrorKind::invalid, "cpu.max period is not a positive number");
    period = *p;
  }
  if (f[0] == "max") return std::optional<double>{};
  auto q = parse_uint(f[0]);
  if (!q || *q == 0) return make_error(ErrorKind::invalid, "cpu.max quota is not a positive number or 'max'");
  return std::optional<double>{static_cast<double>(*q) / static_cast<double>(period)};
}

Result<std::optional<double>> parse_cfs_quota(std::string_view quota, std::string_view period) {
  auto q = parse_int(quota);
  if (!q) return make_error(ErrorKind::invalid, "cpu.cfs_quota_us is not a number");
  if (*q < 0) return std::optional<double>{};  // -1: no quota
  auto p = parse_uint(period);
  if (!p || *p == 0) return make_error(ErrorKind::invalid, "cpu.cfs_period_us is not a positive number");
  if (*q == 0) return make_error(ErrorKind::invalid, "cpu.cfs_quota_us is 0");
  return std::optional<double>{static_cast<double>(*q) / static_cast<double>(*p)};
}

std::map<std::string, std::uint64_t> parse_flat_keyed(std::string_view text) {
  std::map<std::string, std::uint64_t> out;
  for (auto line : split_lines(text)) {
    auto f = split_ws(line);
    if (f.size() != 2) continue;
    auto v = parse_uint(f[1]);
    if (v) out[std::string(f[0])] = *v;
  }
  return out;
}

namespace {

// "/sys/fs/cgroup/a/b" -> [that, "/sys/fs/cgroup/a", "/sys/fs/cgroup"] (paths later read through root).
std::vector<std::string> levels_up(const std::string& leaf, const std::string& top) {
  std::vector<std::string> out{leaf};
  std::string cur = leaf;
  while (cur.size() > top.size()) {
    auto slash = cur.find_last_of('/');
    if (slash == std::string::npos || slash < top.size()) break;
    cur = cur.substr(0, slash);
    out.push_back(cur);
  }
  if (out.back() != top) out.push_back(top);
  return out;
}

std::string join_path(const std::string& dir, const std::string& rel) {
  if (rel.empty() || rel == "/") return dir;
  std::string out = dir;
  // Refuse to walk out of the mount with "..": a cgroup path never contains it.
  for (auto comp : split(rel, '/')) {
    if (comp.empty() || comp == "." || comp == "..") continue;
    out += '/';
    out.append(comp);
  }
  return out;
}

// The directory of the target's cgroup under a controller mount; inside a container the mount
// shows the container's own cgroup at its top, so a path that does not exist falls back to the top.
std::string cgroup_dir(const HostRoot& root, const std::string& mount, const std::string& path) {
  std::string dir = join_path(mount, path);
  return root.exists(dir) ? dir : mount;
}

// The smallest limit found on the way up, or why none could be read.
struct LimitWalk {
  std::optional<std::uint64_t> limit;  // bytes (memory) or nullopt
  std::optional<double> cpus;          // CPUs (cpu quota)
  std::string raw;                     // the binding value as written (or the leaf's when unlimited)
  std::string source;
  bool readable = false;  // at least one level answered
  std::string why;        // why nothing could be read
};

LimitWalk walk_memory(const HostRoot& root, const std::vector<std::string>& dirs, const char* file, bool v2) {
  LimitWalk w;
  for (const auto& d : dirs) {
    std::string p = d + "/" + file;
    auto text = root.read(p, 4096);
    if (!text) {
      if (w.why.empty() && text.error().kind != ErrorKind::absent) w.why = text.error().describe();
      continue;
    }
    auto lim = parse_memory_limit(*text);
    if (!lim) {
      if (w.why.empty()) w.why = p + ": " + lim.error().message;
      continue;
    }
    if (!w.readable) {
      w.raw = std::string(trim(*text));
      w.source = p;
    }
    w.readable = true;
    if (lim->value && (!w.limit || *lim->value < *w.limit)) {
      w.limit = lim->value;
      w.raw = std::string(trim(*text));
      w.source = p;
    }
  }
  if (!w.readable && w.why.empty()) {
    // v2's root cgroup has no memory.max: no limit, if the hierarchy is really there.
    if (v2 && root.exists(dirs.back() + "/cgroup.controllers")) {
      w.readable = true;
      w.raw = "max";
      w.source = dirs.back() + "/cgroup.controllers";
    } else {
      w.why = "absent: " + dirs.front() + "/" + file;
    }
  }
  return w;
}

LimitWalk walk_cpu_v2(const HostRoot& root, const std::vector<std::string>& dirs) {
  LimitWalk w;
  for (const auto& d : dirs) {
    std::string p = d + "/cpu.max";
    auto text = root.read(p, 4096);
    if (!text) {
      if (w.why.empty() && text.error().kind != ErrorKind::absent) w.why = text.error().describe();
      continue;
    }
    auto q = parse_cpu_max(*text);
    if (!q) {
      if (w.why.empty()) w.why = p + ": " + q.error().message;
      continue;
    }
    if (!w.readable) {
      w.raw = std::string(trim(*text));
      w.source = p;
    }
    w.readable = true;
    if (*q && (!w.cpus || **q < *w.cpus)) {
      w.cpus = *q;
      w.raw = std::string(trim(*text));
      w.source = p;
    }
  }
  if (!w.readable && w.why.empty()) {
    if (root.exists(dirs.back() + "/cgroup.controllers")) {
      w.readable = true;  // root cgroup: no cpu.max, no quota
      w.raw = "max";
      w.source = dirs.back() + "/cgroup.controllers";
    } else {
      w.why = "absent: " + dirs.front() + "/cpu.max";
    }
  }
  return w;
}

LimitWalk walk_cpu_v1(const HostRoot& root, const std::vector<std::string>& dirs) {
  LimitWalk w;
  for (const auto& d : dirs) {
    auto q = root.read(d + "/cpu.cfs_quota_us", 4096);
    auto p = root.read(d + "/cpu.cfs_period_us", 4096);
    if (!q || !p) {
      const auto& bad = !q ? q : p;
      if (w.why.empty() && bad.error().kind != ErrorKind::absent) w.why = bad.error().describe();
      continue;
    }
    auto cpus = parse_cfs_quota(*q, *p);
    if (!cpus) {
      if (w.why.empty()) w.why = d + "/cpu.cfs_quota_us: " + cpus.error().message;
      continue;
    }
    std::string raw = std::string(trim(*q)) + "/" + std::string(trim(*p));
    if (!w.readable) {
      w.raw = raw;
      w.source = d + "/cpu.cfs_quota_us";
    }
    w.readable = true;
    if (*cpus && (!w.cpus || **cpus < *w.cpus)) {
      w.cpus = *cpus;
      w.raw = raw;
      w.source = d + "/cpu.cfs_quota_us";
    }
  }
  if (!w.readable && w.why.empty()) w.why = "absent: " + dirs.front() + "/cpu.cfs_quota_us";
  return w;
}

// The first cpuset list found from the leaf up (the cpuset controller may be enabled only higher up).
void read_cpuset(const HostRoot& root, const std::vector<std::string>& dirs, const std::vector<const char*>& files,
                 CgroupFacts& cg) {
  std::string why;
  for (const auto& d : dirs) {
    for (const char* f : files) {
      std::string p = d + "/" + f;
      auto text = root.read(p, 65536);
      if (!text) {
        if (why.empty() && text.error().kind != ErrorKind::absent) why = text.error().describe();
        continue;
      }
      std::string list(trim(*text));
      if (list.empty()) continue;  // an unset cpuset.cpus inherits: look further up
      auto cpus = parse_cpulist(list);
      if (!cpus) {
        cg.cpuset_cpus = Fact<std::string>::of(list.substr(0, 200), p);
        cg.cpuset_count = Fact<int>::none(p + ": " + cpus.error().message, p);
        return;
      }
      cg.cpuset_cpus = Fact<std::string>::of(list, p);
      cg.cpuset_count = Fact<int>::of(static_cast<int>(cpus->size()), p);
      return;
    }
  }
  std::string reason = why.empty() ? "absent: no cpuset list under " + dirs.front() : why;
  cg.cpuset_cpus = Fact<std::string>::none(reason);
  cg.cpuset_count = Fact<int>::none(reason);
}

void fill_memory(const HostRoot& root, const std::vector<std::string>& dirs, bool v2, CgroupFacts& cg) {
  const char* file = v2 ? "memory.max" : "memory.limit_in_bytes";
  LimitWalk w = walk_memory(root, dirs, file, v2);
  if (!w.readable) {
    cg.memory_limit_raw = Fact<std::string>::none(w.why);
    cg.memory_limit_bytes = Fact<std::uint64_t>::none(w.why);
  } else {
    cg.memory_limit_raw = Fact<std::string>::of(w.raw, w.source);
    cg.memory_limit_bytes = w.limit ? Fact<std::uint64_t>::of(*w.limit, w.source)
                                    : Fact<std::uint64_t>::none("unlimited (" + std::string(file) + " = " + w.raw + ")", w.source);
  }
  // OOM counters of the target's own cgroup (v2 counts are hierarchical: descendants included).
  std::string events = dirs.front() + (v2 ? "/memory.events" : "/memory.oom_control");
  auto text = root.read(events, 65536);
  if (!text) {
    std::string why = text.error().describe();
    if (v2 && dirs.size() == 1) why += " (the root cgroup has no memory.events)";
    cg.oom_kill_events = Fact<std::uint64_t>::none(why, events);
    cg.oom_events = Fact<std::uint64_t>::none(why, events);
  } else {
    auto kv = parse_flat_keyed(*text);
    auto get = [&](const char* k) {
      auto it = kv.find(k);
      return it == kv.end() ? Fact<std::uint64_t>::none(std::string("no '") + k + "' line in " + events, events)
                            : Fact<std::uint64_t>::of(it->second, events);
    };
    cg.oom_kill_events = get("oom_kill");  // v1: only on kernels that print it (4.13+)
    cg.oom_events = v2 ? get("oom") : Fact<std::uint64_t>::none("v1 has no 'oom' counter", events);
  }
  std::string cur = dirs.front() + (v2 ? "/memory.current" : "/memory.usage_in_bytes");
  auto c = root.read(cur, 4096);
  if (!c) {
    cg.memory_current_bytes = Fact<std::uint64_t>::none(c.error().describe(), cur);
  } else if (auto n = parse_uint(*c)) {
    cg.memory_current_bytes = Fact<std::uint64_t>::of(*n, cur);
  } else {
    cg.memory_current_bytes = Fact<std::uint64_t>::none(cur + ": not a number", cur);
  }
}

void fill_cpu(const LimitWalk& w, CgroupFacts& cg) {
  if (!w.readable) {
    cg.cpu_quota_raw = Fact<std::string>::none(w.why);
    cg.cpu_quota_cpus = Fact<double>::none(w.why);
  } else {
    cg.cpu_quota_raw = Fact<std::string>::of(w.raw, w.source);
    cg.cpu_quota_cpus = w.cpus ? Fact<double>::of(*w.cpus, w.source)
                               : Fact<double>::none("unlimited (no CPU quota: " + w.raw + ")", w.source);
  }
}

void fill_effective_cpus(CgroupFacts& cg) {
  std::optional<double> eff;
  std::string src;
  if (cg.cpu_quota_cpus.has()) {
    eff = *cg.cpu_quota_cpus;
    src = cg.cpu_quota_cpus.source;
  }
  if (cg.cpuset_count.has() && (!eff || *cg.cpuset_count < *eff)) {
    eff = *cg.cpuset_count;
    src = cg.cpuset_count.source;
  }
  if (eff) {
    cg.effective_cpus = Fact<double>::of(*eff, src);
  } else if (cg.cpu_quota_raw.has()) {
    cg.effective_cpus = Fact<double>::none("no CPU quota and no cpuset: the cgroup does not limit CPUs");
  } else {
    cg.effective_cpus = Fact<double>::none(cg.cpu_quota_raw.why());
  }
}

// The mount and directory of a v1 controller: the mount is named after the controller list as
// the kernel prints it ("cpu,cpuacct"), usually with per-controller symlinks ("cpu").
struct V1Dir {
  std::string mount, dir;  // both empty when the controller is not mounted
};
V1Dir v1_controller_dir(const HostRoot& root, const CgroupMembership& m, const std::string& ctrl) {
  std::string joined;
  for (const auto& c : m.controllers) joined += (joined.empty() ? "" : ",") + c;
  for (const auto& name : {joined, ctrl}) {
    std::string mount = std::string(kCgroupMount) + "/" + name;
    if (root.exists(mount)) return {mount, cgroup_dir(root, mount, m.path)};
  }
  return {};
}

const CgroupMembership* with_controller(const std::vector<CgroupMembership>& ms, const std::string& ctrl) {
  for (const auto& m : ms) {
    if (std::find(m.controllers.begin(), m.controllers.end(), ctrl) != m.controllers.end()) return &m;
  }
  return nullptr;
}

void all_missing(CgroupFacts& cg, const std::string& why) {
  cg.version = Fact<int>::none(why);
  cg.path = Fact<std::string>::none(why);
  cg.memory_limit_raw = Fact<std::string>::none(why);
  cg.memory_limit_bytes = Fact<std::uint64_t>::none(why);
  cg.memory_current_bytes = Fact<std::uint64_t>::none(why);
  cg.oom_events = cg.oom_kill_events = Fact<std::uint64_t>::none(why);
  cg.cpu_quota_raw = cg.cpuset_cpus = Fact<std::string>::none(why);
  cg.cpu_quota_cpus = cg.effective_cpus = Fact<double>::none(why);
  cg.cpuset_count = Fact<int>::none(why);
}

}  // namespace

CgroupFacts read_cgroup(const Context& ctx) {
  CgroupFacts cg;
  cg.collected = true;
  const HostRoot& root = ctx.root;
  std::string src = ctx.proc_dir() + "/cgroup";
  auto text = root.read(src, 65536);
  if (!text) {
    all_missing(cg, text.error().describe());
    return cg;
  }
  auto ms = parse_proc_cgroup(*text);
  if (ms.empty()) {
    all_missing(cg, "no cgroup membership lines in " + src);
    return cg;
  }
  const CgroupMembership* mem_v1 = with_controller(ms, "memory");
  const CgroupMembership* unified = nullptr;
  for (const auto& m : ms) {
    if (m.hierarchy == "0" && m.controllers.empty()) unified = &m;
  }
  std::string top = kCgroupMount;
  if (mem_v1 == nullptr && unified != nullptr) {
    // cgroup v2 (unified): one tree, every controller in the same directory.
    cg.version = Fact<int>::of(2, src);
    cg.path = Fact<std::string>::of(unified->path, src);
    if (!root.exists(top + "/cgroup.controllers")) {
      // Tell a directory plumb may not enter from one where nothing is mounted.
      auto probe = root.list(top);
      if (!probe && probe.error().kind == ErrorKind::denied) {
        all_missing(cg, "permission denied: " + probe.error().message);
      } else {
        all_missing(cg, "absent: " + top + "/cgroup.controllers (cgroup2 not mounted at " + top + ")");
      }
      cg.version = Fact<int>::of(2, src);
      cg.path = Fact<std::string>::of(unified->path, src);
      return cg;
    }
    auto dirs = levels_up(cgroup_dir(root, top, unified->path), top);
    fill_memory(root, dirs, true, cg);
    fill_cpu(walk_cpu_v2(root, dirs), cg);
    read_cpuset(root, dirs, {"cpuset.cpus.effective", "cpuset.cpus"}, cg);
  } else if (mem_v1 != nullptr || with_controller(ms, "cpu") != nullptr) {
    // cgroup v1 (or hybrid, whose memory and cpu controllers are still v1): one tree per controller.
    cg.version = Fact<int>::of(1, src);
    const CgroupMembership* any = mem_v1 != nullptr ? mem_v1 : with_controller(ms, "cpu");
    cg.path = Fact<std::string>::of(any->path, src);
    auto v1_missing_memory = [&](const std::string& why) {
      cg.memory_limit_raw = Fact<std::string>::none(why);
      cg.memory_limit_bytes = cg.memory_current_bytes = cg.oom_kill_events = cg.oom_events =
          Fact<std::uint64_t>::none(why);
    };
    if (mem_v1 == nullptr) {
      v1_missing_memory("no v1 memory controller line in " + src);
    } else if (V1Dir d = v1_controller_dir(root, *mem_v1, "memory"); d.dir.empty()) {
      v1_missing_memory("absent: " + top + "/memory (v1 memory controller not mounted)");
    } else {
      fill_memory(root, levels_up(d.dir, d.mount), false, cg);
    }
    const CgroupMembership* cpu = with_controller(ms, "cpu");
    V1Dir cd = cpu != nullptr ? v1_controller_dir(root, *cpu, "cpu") : V1Dir{};
    if (cd.dir.empty()) {
      fill_cpu(LimitWalk{{}, {}, {}, {}, false, "absent: v1 cpu controller not found under " + top}, cg);
    } else {
      fill_cpu(walk_cpu_v1(root, levels_up(cd.dir, cd.mount)), cg);
    }
    const CgroupMembership* cs = with_controller(ms, "cpuset");
    V1Dir sd = cs != nullptr ? v1_controller_dir(root, *cs, "cpuset") : V1Dir{};
    if (sd.dir.empty()) {
      cg.cpuset_cpus = Fact<std::string>::none("absent: v1 cpuset controller not found under " + top);
      cg.cpuset_count = Fact<int>::none("absent: v1 cpuset controller not found under " + top);
    } else {
      read_cpuset(root, levels_up(sd.dir, sd.mount), {"cpuset.effective_cpus", "cpuset.cpus"}, cg);
    }
  } else {
    all_missing(cg, "no memory or cpu controller in " + src);
    return cg;
  }
  fill_effective_cpus(cg);
  return cg;
}

std::vector<int> affinity_cpus() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) out.push_back(c);
    }
  }
  if (out.empty()) {
    long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < std::max(1L, n); ++c) out.push_back(static_cast<int>(c));
  }
  return out;
}

int usable_cpus(const HostRoot& root, int affinity) {
  Context ctx;
  ctx.root = root;
  const CgroupFacts cg = read_cgroup(ctx);
  int n = std::max(affinity, 1);
  if (cg.cpu_quota_cpus.has()) n = std::min(n, static_cast<int>(std::max(1.0, std::ceil(*cg.cpu_quota_cpus))));
  return n;
}

int usable_cpus(const HostRoot& root) { return usable_cpus(root, static_cast<int>(affinity_cpus().size())); }

void collect_cgroup_tables(Tables& t) {
  t.add_collector({"collect.cgroup", {"cgroup v1/v2: memory limit, OOM kills, CPU quota, cpuset",
                                                               "cgroup v1/v2：内存上限、OOM 杀进程、CPU 配额、cpuset"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              CgroupFacts cg = read_cgroup(ctx);
                                              return [cg](Facts& f) { f.host.cgroup = cg; };
                                            }});
}

}  // namespace plumb
