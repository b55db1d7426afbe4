// Kernel-log rules: OOM-killer events (memory pillar). The Xid lines of the same log are judged
// by the GPU rule l3.gpu.xid (rules/gpu_xid.cpp).
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/thresholds.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr std::size_t kVictimsShown = 5;

std::vector<Finding> judge_oom_kills(const Facts& f, const Thresholds& th) {
  const std::string id = "l3.kernel.oom_kills";
  const auto& k = f.host.kmsg;
  if (!k.collected) return {skipped(id, "kernel log not collected")};
  if (!k.records.has()) return {skipped(id, k.records.why())};
  Finding x;
  x.id = id;
  double max_kills = th.get("kernel.oom_kills_max");
  x.threshold = "OOM kills <= " + fmt_num(max_kills, 0);
  x.arg("records", std::to_string(*k.records)).arg("count", std::to_string(k.oom_kill_total));
  int cgroup = 0, global = 0, unknown = 0;
  std::string victims;
  for (const auto& o : k.oom_kills) {
    (o.scope == "cgroup" ? cgroup : o.scope == "global" ? global : unknown)++;
  }
  for (std::size_t i = 0; i < k.oom_kills.size() && i < kVictimsShown; ++i) {
    const auto& o = k.oom_kills[i];
    std::string v = (o.process.empty() ? "?" : o.process) + " (pid " + (o.pid ? std::to_string(*o.pid) : "?") + ", " +
                    (o.scope == "cgroup" ? "memcg" + (o.memcg.empty() ? "" : " " + o.memcg) : o.scope) + ")";
    victims += (victims.empty() ? "" : ", ") + v;
    x.add("OOM kill", o.line, k.records.source + (o.time.empty() ? "" : " " + o.time));
  }
  if (k.oom_kill_total > k.oom_kills.size()) victims += ", ...";
  x.arg("cgroup_count", std::to_string(cgroup)).arg("global_count", std::to_string(global));
  x.arg("unknown_count", std::to_string(unknown)).arg("victims", victims);
  x.arg("log", k.records.source);
  if (static_cast<double>(k.oom_kill_total) > max_kills) {
    x.status = Status::fail;
    x.variant = cgroup > 0 && global == 0 && unknown == 0 ? "fail_cgroup" : global > 0 && cgroup == 0 && unknown == 0 ? "fail_global" : "fail";
  } else {
    x.status = Status::pass;
  }
  return {x};
}




}  // namespace
void rules_host_kmsg_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"kernel.oom_kills_max", 0, "count",
     {"OOM-killer events the kernel log may show", "内核日志中允许出现的 OOM Killer 事件数"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {"l3.kernel.oom_kills", Layer::L3, Pillar::memory, Section::environment,
     {"OOM-killer events in the kernel log", "内核日志中的 OOM Killer 事件"},
     {{"pass", {"no OOM kill in the kernel log ({records} lines read).", "内核日志中没有 OOM kill（读取 {records} 行）。"}},
      {"fail",
       {"the kernel log shows {count} OOM kill(s) ({cgroup_count} at a memory cgroup limit, {global_count} machine-wide, "
        "{unknown_count} unclassified); victims: {victims}.",
        "内核日志显示 {count} 次 OOM kill（{cgroup_count} 次触及内存 cgroup 上限，{global_count} 次整机内存耗尽，"
        "{unknown_count} 次未能归类）；被杀进程：{victims}。"}},
      {"fail_cgroup",
       {"the kernel log shows {count} OOM kill(s) at a memory cgroup limit (the container or job limit, not the "
        "machine); victims: {victims}.",
        "内核日志显示 {count} 次 OOM kill，均为触及内存 cgroup 上限（容器或作业的限制，而非整机）；被杀进程：{victims}。"}},
      {"fail_global",
       {"the kernel log shows {count} machine-wide OOM kill(s): the host ran out of memory; victims: {victims}.",
        "内核日志显示 {count} 次整机 OOM kill：宿主机内存耗尽；被杀进程：{victims}。"}}},
     {"cgroup kills: raise the container/job memory limit or lower the job's memory (fewer DataLoader workers, "
      "smaller prefetch_factor or batch); machine-wide kills: the host ran out of RAM, so reduce co-located jobs or "
      "the job's memory; read the lines around each kill (memory map, task list) for the biggest consumer",
      "cgroup 内的 kill：提高容器/作业内存上限，或降低作业内存（减少 DataLoader worker、减小 prefetch_factor 或 batch）；"
      "整机 kill：宿主机内存耗尽，减少同机作业或作业内存；查看每次 kill 前后的日志（内存分布、进程列表）找出最大消耗者"},
     "dmesg -T | grep -iE 'killed process|oom-kill:'",
     {"no more killed workers and restarts", "不再出现 worker 被杀与重启"},
     {"l2.memory.pressure"}},
};
});
  t.add_rule({"l3.kernel.oom_kills", {"collect.kmsg"}, judge_oom_kills});
}

}  // namespace plumb
