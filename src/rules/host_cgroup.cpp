// cgroup memory rules (memory pillar): a memory limit far below the host's memory, and OOM kills
// counted by the cgroup itself (memory.events / memory.oom_control).
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/thresholds.h"
#include "core/tables.h"

namespace plumb {

namespace {

// Evidence label: the file the limit was read from ("memory.max", "memory.limit_in_bytes").
std::string limit_file_name(const CgroupFacts& cg) {
  const std::string& src = cg.memory_limit_raw.source;
  auto slash = src.find_last_of('/');
  std::string name = slash == std::string::npos ? src : src.substr(slash + 1);
  // The root cgroup has no limit file; its evidence points at cgroup.controllers.
  return name.rfind("memory.", 0) == 0 ? name : std::string("memory.max");
}

std::string version_name(const CgroupFacts& cg) { return cg.version.has() ? "cgroup v" + std::to_string(*cg.version) : "cgroup"; }

std::vector<Finding> judge_cgroup_limit(const Facts& f, const Thresholds& th) {
  const std::string id = "l3.memory.cgroup_limit";
  const auto& cg = f.host.cgroup;
  if (!cg.collected) return {skipped(id, "cgroup facts not collected")};
  if (!cg.memory_limit_raw.has()) return {skipped(id, cg.memory_limit_raw.why())};
  Finding x;
  x.id = id;
  x.arg("cgroup", version_name(cg)).arg("path", cg.path.has() ? *cg.path : "?").arg("limit_file", cg.memory_limit_raw.source);
  x.add(limit_file_name(cg), *cg.memory_limit_raw, cg.memory_limit_raw.source);
  double min_pct = th.get("memory.cgroup_limit_min_pct");
  x.threshold = ">= " + fmt_num(min_pct, 1) + " % of MemTotal";
  x.arg("min_pct", fmt_num(min_pct, 1));
  if (!cg.memory_limit_bytes.has()) {
    x.status = Status::pass;
    x.variant = "unlimited";
    x.arg("raw", *cg.memory_limit_raw);
    return {x};
  }
  const auto& total = f.host.memory.mem_total_bytes;
  if (!total.has()) return {skipped(id, "MemTotal unknown: " + total.why())};
  double pct = *total > 0 ? 100.0 * static_cast<double>(*cg.memory_limit_bytes) / static_cast<double>(*total) : 100.0;
  x.arg("limit", human_bytes(*cg.memory_limit_bytes)).arg("total", human_bytes(*total)).arg("pct", fmt_num(pct, 1));
  x.add("MemTotal", human_bytes(*total), total.source);
  if (cg.memory_current_bytes.has()) {
    x.add(cg.version.has() && *cg.version == 1 ? "memory.usage_in_bytes" : "memory.current",
          human_bytes(*cg.memory_current_bytes), cg.memory_current_bytes.source);
  }
  x.status = pct < min_pct ? Status::warn : Status::pass;
  return {x};
}

std::vector<Finding> judge_cgroup_oom(const Facts& f, const Thresholds& th) {
  const std::string id = "l3.memory.cgroup_oom_kills";
  const auto& cg = f.host.cgroup;
  if (!cg.collected) return {skipped(id, "cgroup facts not collected")};
  if (!cg.oom_kill_events.has()) return {skipped(id, cg.oom_kill_events.why())};
  Finding x;
  x.id = id;
  double max_kills = th.get("memory.cgroup_oom_kills_max");
  x.threshold = "oom_kill <= " + fmt_num(max_kills, 0);
  x.arg("count", std::to_string(*cg.oom_kill_events)).arg("events_file", cg.oom_kill_events.source);
  x.arg("cgroup", version_name(cg)).arg("path", cg.path.has() ? *cg.path : "?");
  x.arg("limit", cg.memory_limit_bytes.has() ? human_bytes(*cg.memory_limit_bytes)
                                             : (cg.memory_limit_raw.has() ? *cg.memory_limit_raw : "?"));
  x.add("oom_kill", std::to_string(*cg.oom_kill_events), cg.oom_kill_events.source);
  if (cg.oom_events.has()) x.add("oom", std::to_string(*cg.oom_events), cg.oom_events.source);
  if (cg.memory_limit_raw.has()) x.add(limit_file_name(cg), *cg.memory_limit_raw, cg.memory_limit_raw.source);
  x.status = static_cast<double>(*cg.oom_kill_events) > max_kills ? Status::fail : Status::pass;
  return {x};
}




}  // namespace
void rules_host_cgroup_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"memory.cgroup_limit_min_pct", 25, "%",
     {"smallest cgroup memory limit, as a share of the host's MemTotal, that is not a warning",
      "cgroup 内存上限占宿主机 MemTotal 的最小比例，低于此值告警"}},
    {"memory.cgroup_oom_kills_max", 0, "count",
     {"OOM kills the cgroup may have recorded (memory.events oom_kill)", "cgroup 允许记录的 OOM kill 次数（memory.events oom_kill）"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {"l3.memory.cgroup_limit", Layer::L3, Pillar::memory, Section::environment,
     {"cgroup memory limit against host memory", "cgroup 内存上限与宿主机内存对比"},
     {{"pass", {"the {cgroup} memory limit {limit} is {pct} % of host memory {total}.",
                "{cgroup} 内存上限 {limit} 为宿主机内存 {total} 的 {pct}%。"}},
      {"unlimited", {"the {cgroup} of the job sets no memory limit ({raw}).", "作业所在 {cgroup} 未设置内存上限（{raw}）。"}},
      {"warn",
       {"the {cgroup} memory limit {limit} is only {pct} % of host memory {total} (below {min_pct} %): the job and its "
        "DataLoader workers are OOM-killed inside the cgroup long before the machine runs out of memory.",
        "{cgroup} 内存上限 {limit} 只有宿主机内存 {total} 的 {pct}%（低于 {min_pct}%）：作业及其 DataLoader worker "
        "会在机器内存远未用尽时就被 cgroup 内的 OOM Killer 杀掉。"}}},
     {"raise the job's memory limit to what it needs, DataLoader workers included: docker run --memory=..., Kubernetes "
      "resources.limits.memory, systemd MemoryMax=; or lower the job's memory (fewer workers, smaller prefetch_factor)",
      "把作业的内存上限提高到实际需要（包括 DataLoader worker）：docker run --memory=...、Kubernetes "
      "resources.limits.memory、systemd MemoryMax=；或降低作业内存（减少 worker、减小 prefetch_factor）"},
     "cat {limit_file}",
     {"no cgroup OOM kills of workers", "worker 不再被 cgroup OOM 杀掉"},
     {"l2.memory.pressure", "l2.serving.tail_latency"}},
    {"l3.memory.cgroup_oom_kills", Layer::L3, Pillar::memory, Section::environment,
     {"OOM kills recorded by the job's cgroup", "作业 cgroup 记录的 OOM kill"},
     {{"pass", {"the {cgroup} of the job recorded no OOM kill.", "作业所在 {cgroup} 未记录 OOM kill。"}},
      {"fail",
       {"the {cgroup} of the job ({path}) recorded {count} OOM kill(s) at its memory limit {limit}: processes of the "
        "job (often DataLoader workers) were killed.",
        "作业所在 {cgroup}（{path}）在内存上限 {limit} 处记录了 {count} 次 OOM kill：作业的进程（常见为 DataLoader "
        "worker）被杀掉了。"}}},
     {"find the victims (dmesg -T | grep -i 'killed process'), then raise the cgroup memory limit or lower the job's "
      "memory (fewer DataLoader workers, smaller prefetch_factor or batch)",
      "先找到被杀的进程（dmesg -T | grep -i 'killed process'），再提高 cgroup 内存上限或降低作业内存"
      "（减少 DataLoader worker、减小 prefetch_factor 或 batch）"},
     "grep oom_kill {events_file}",
     {"no more killed workers and restarts", "不再出现 worker 被杀与重启"},
     {"l2.memory.pressure"}},
};
});
  t.add_rule({"l3.memory.cgroup_limit", {"collect.cgroup", "collect.memory"}, judge_cgroup_limit});
  t.add_rule({"l3.memory.cgroup_oom_kills", {"collect.cgroup"}, judge_cgroup_oom});
}

}  // namespace plumb
