// The pipeline of `plumb check` (options -> machine -> collect -> judge -> render -> store) and of
// `plumb report` (a saved snapshot judged and rendered again).
#include <algorithm>
#include <chrono>
#include <iostream>

#include "engine/agent.h"
#include "engine/machine.h"
#include "engine/history.h"
#include "engine/scheduler.h"
#include "engine/check.h"
#include "engine/output.h"
#include "engine/timings.h"
#include "core/atomic_file.h"
#include "core/catalog.h"
#include "core/collect_timing.h"
#include "core/registry.h"
#include "report/catalog_doc.h"
#include "rules/history.h"
#include "analyze/watch_recording.h"

namespace plumb {

Report collect_check_report(const Context& ctx, const Selection& sel, CollectionTimings* timings, const std::string& command) {
  auto start = std::chrono::steady_clock::now();
  Report r = new_report(command, host_name(ctx.root));
  r.facts.meta.root = ctx.root.root();
  r.facts.meta.target_pid = ctx.pid;
  collect(ctx, sel, r.facts, timings);
  r.facts.meta.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return r;
}

int run_check(const CheckOptions& a) {
  if (a.print_config) {
    write_output(default_config_toml(render_options(a.output).lang), a.output.out);
    return 0;
  }
  if (a.list) {
    RenderOptions ro = render_options(a.output);
    write_output(render_catalog(ro.lang, a.output.format == "md" ? "md" : "text"), a.output.out);
    return 0;
  }
  Config cfg = load_config_or_throw(a.machine.config);
  if (a.expect_gpus >= 0) cfg.thresholds.set("gpu.expected_count", a.expect_gpus);
  Selection sel = make_selection(a.only, a.skip, cfg.skip);
  Context ctx = make_context(a.machine);
  ctx.bench = a.bench;
  const RenderOptions ro = render_options(a.output);
  SchedulerRun sched = prepare_scheduler_mode(a.sched, sel, ctx, ro.lang);
  check_output(a.output);  // fails early with the hint; validates --lang
  refuse_one_file_twice(a.output.out, a.save, "--save");

  // machine -> collect
  auto start = std::chrono::steady_clock::now();
  CollectionTimings timings;
  Report r = collect_check_report(ctx, sel, a.timings ? &timings : nullptr);
  // store (read): the baseline and earlier runs the benchmarks are compared with
  auto history = open_history_for_check(a.history, ctx.root.root());
  if (r.facts.bench.collected) {
    attach_baseline(r.facts, history.get(), a.history);
    attach_earlier_runs(r.facts, history.get());
  }
  // a scheduler's health check on a node with an agent: the node's history is judged too (a fault
  // that survived reboots drains it; a port down for a minute after boot does not)
  if (a.sched.active()) attach_agent_state(r.facts, ctx.root, a.sched.state_dir, ro.lang);
  // judge
  r.findings = judge(r.facts, cfg.thresholds, sel);
  hold_until_persistent(r.findings, r.facts.events, cfg.thresholds);
  // render; --timings: facts.meta.timings in every JSON this run writes, the table on stderr
  auto json_text = [&] {
    std::string text = render_json_text(r, ro);
    return a.timings ? with_timings(text, timings) : text;
  };
  if (!a.save.empty()) {
    auto w = write_file_atomic(a.save, json_text());
    if (!w) throw UsageError(w.error().message);
  }
  if (!a.sched.active()) {
    if (a.output.format == "json") {
      write_output(json_text(), a.output.out);  // the output was checked before collecting
    } else {
      emit(r, a.output);
    }
  }
  // store (write)
  record_report(history.get(), r, true);
  if (a.timings) {
    double command_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::cerr << render_timings(timings, command_ms, ro.lang);
  }
  if (a.sched.active()) return finish_scheduler_mode(a.sched, sched, r, ro.lang);
  return exit_code_for(r.findings);
}


int run_report(const ReportOptions& a) {
  check_output(a.output);  // fails early with the hint; validates --lang
  Config cfg = load_config_or_throw(a.config);
  Selection sel = make_selection(a.only, a.skip, cfg.skip);
  auto text = read_user_file(a.snapshot);
  if (!text) throw UsageError("cannot read snapshot " + text.error().message);
  // A `plumb watch --record` file (JSON lines or CSV) is judged like a snapshot, by the watch
  // rules only unless --only says otherwise (it holds no facts for the other checks).
  bool recording = watch::looks_like_recording(*text);
  auto facts = recording ? watch::facts_from_recording(*text, a.snapshot) : facts_from_snapshot(*text, a.snapshot);
  if (recording && sel.only.empty()) sel.only = {"l2.watch"};
  if (!facts) throw UsageError(facts.error().message);
  Report r;
  r.facts = std::move(facts.value());
  r.findings = judge(r.facts, cfg.thresholds, sel);
  emit(r, a.output);
  return exit_code_for(r.findings);
}

}  // namespace plumb
