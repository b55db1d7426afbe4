// Scheduler output modes of `plumb check` (see scheduler_modes.h).
#include "core/deadline.h"
#include "engine/scheduler.h"

#include <unistd.h>

#include <iostream>
#include <thread>

#include "engine/npd_plugin.h"
#include "engine/output.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {


// Time kept for scontrol after the checks: the state query and the update.
std::chrono::milliseconds scontrol_reserve(std::chrono::milliseconds budget) {
  return std::min<std::chrono::milliseconds>(std::chrono::seconds(15), budget / 3);
}

// Ends the process when the budget is spent, so the scheduler never has to kill plumb: slurmd
// kills a health check at 60 s, NPD reports a timed-out plugin as unknown. Nothing is changed on
// the way out; the line says why.
void start_watchdog(std::chrono::milliseconds budget, bool npd, Lang lang) {
  std::string seconds = fmt_num(std::chrono::duration<double>(budget).count(), 1);
  std::string line = npd ? npd_unknown(fill(tr(lang, "sched.budget_reason"), {{"seconds", seconds}}), lang).line
                         : fill(tr(lang, "sched.budget_spent"), {{"seconds", seconds}});
  line += "\n";
  // A detached watchdog that ends the process, not data-parallel work (core/parallel.h).
  std::thread([budget, line, npd] {
    std::this_thread::sleep_for(budget);
    auto n = ::write(STDOUT_FILENO, line.data(), line.size());
    (void)n;
    exit_past_deadline(npd ? kNpdUnknown : 2);
  }).detach();
}

}  // namespace

SchedulerRun prepare_scheduler_mode(const SchedulerOptions& o, Selection& sel, Context& ctx, Lang lang) {
  SchedulerRun run;
  if (!o.slurm && (o.dry_run || !o.node.empty() || !o.scontrol.empty() || o.slurm_conf != kDefaultSlurmConf)) {
    throw UsageError("--dry-run, --node, --scontrol and --slurm-conf need --slurm");
  }
  if (!o.npd && !o.layer.empty()) throw UsageError("--layer needs --npd");
  if (o.npd && o.slurm) throw UsageError("--npd and --slurm are two different modes: give one");
  if (!o.active()) {
    if (o.budget_s != 0) throw UsageError("--budget needs --slurm or --npd");
    return run;
  }
  if (!o.layer.empty()) {
    run.layer = parse_npd_layer(o.layer);
    if (!run.layer) throw UsageError("--layer " + o.layer + ": expected one of gpu, framework, data, distributed, host");
    // Only the rules of that layer run, so only the collectors they need start.
    if (sel.only.empty()) sel.only = rule_ids_of_section(*run.layer);
    if (sel.only.empty()) throw UsageError("--layer " + o.layer + ": no check belongs to this layer");
  }
  double budget_s = o.budget_s;
  if (budget_s < 0 || budget_s > 3600) throw UsageError("--budget must be between 0 and 3600 seconds");
  if (o.slurm && budget_s == 0) budget_s = std::chrono::duration<double>(kDefaultSlurmBudget).count();
  if (o.slurm && budget_s >= 60) throw UsageError("--budget must stay under slurmd's 60 s limit for a health check");
  if (o.slurm) {
    if (o.slurm_conf.empty() || o.slurm_conf.front() != '/') throw UsageError("--slurm-conf " + o.slurm_conf + ": give an absolute path");
    if (::access(o.slurm_conf.c_str(), R_OK) != 0 && !o.dry_run) throw UsageError("--slurm-conf " + o.slurm_conf + ": cannot read");
    auto sc = find_scontrol(o.scontrol);
    if (!sc && !o.dry_run) throw UsageError(sc.error().message);
    auto node = slurm_node_name(o.node);
    if (!node) throw UsageError(node.error().message);
    run.scontrol = {sc ? *sc : (o.scontrol.empty() ? scontrol_locations().front() : o.scontrol), o.slurm_conf, *node};
  }
  if (budget_s > 0) {
    auto budget = std::chrono::milliseconds(static_cast<long long>(budget_s * 1000));
    run.deadline = std::chrono::steady_clock::now() + budget;
    if (o.slurm) ctx.deadline = std::min(ctx.deadline, budget - scontrol_reserve(budget));
    start_watchdog(budget, o.npd, lang);
  }
  return run;
}

int finish_scheduler_mode(const SchedulerOptions& o, const SchedulerRun& run, const Report& r, Lang lang) {
  if (o.npd) {
    auto v = npd_verdict(r.findings, run.layer, lang);
    std::cout << v.line << "\n" << std::flush;
    return v.exit_code;
  }
  auto left = std::chrono::milliseconds(20000);
  if (run.deadline != std::chrono::steady_clock::time_point::max()) {
    left = std::chrono::duration_cast<std::chrono::milliseconds>(run.deadline - std::chrono::steady_clock::now()) -
           std::chrono::milliseconds(500);
  }
  auto res = run_slurm_health(r.findings, run.scontrol, o.dry_run, std::min(left, std::chrono::milliseconds(20000)), lang);
  for (const auto& l : res.lines) std::cout << "plumb: " << l << "\n";
  std::cout << std::flush;
  return res.exit_code;
}

int run_scheduler_guarded(const SchedulerOptions& o, const std::string& lang_flag, const std::function<int()>& check) {
  if (!o.npd) return check();
  try {
    return check();
  } catch (const std::exception& e) {  // UsageError, and anything plumb did not expect: "unknown" either way
    std::cout << npd_unknown(e.what(), detect_lang(lang_flag)).line << "\n" << std::flush;
    return kNpdUnknown;
  }
}

void engine_scheduler_tables(Tables& t) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"sched.budget_spent", {"plumb: the time budget of {seconds} s is spent; node state left unchanged",
                            "plumb：{seconds} 秒的时间预算已用完；节点状态未改动"}},
    {"sched.budget_reason", {"time budget of {seconds} s spent", "{seconds} 秒的时间预算已用完"}},
};
});
}

}  // namespace plumb
