// `plumb check` (collect, judge, render) and `plumb report` (judge a saved snapshot again).
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <iostream>
#include <memory>
#include <set>
#include <string_view>

#include "cli/check_options.h"
#include "cli/history_options.h"
#include "cli/scheduler_modes.h"
#include "cli/subcommand.h"
#include "cli/timings.h"
#include "core/atomic_file.h"
#include "core/catalog.h"
#include "core/collect_timing.h"
#include "core/heap.h"
#include "core/registry.h"
#include "collect/python_probe.h"
#include "report/catalog_doc.h"
#include "analyze/watch_recording.h"

namespace plumb {

namespace {

struct CheckArgs {
  MachineOptions machine;
  OutputOptions output;
  std::vector<std::string> only, skip;
  std::string save;
  std::string bench = "none";
  bool list = false;
  bool print_config = false;
  bool timings = false;  // --timings
  int expect_gpus = -1;  // --expect-gpus N: overrides the gpu.expected_count threshold
  HistoryOptions history;
  SchedulerOptions sched;  // --slurm, --npd
};

// The collectors' threads all allocate from one glibc arena. By default glibc gives each new thread
// an arena of its own while there are fewer than eight per CPU; each arena's first blocks are fresh
// pages, faulted in while the probe's interpreter needs the CPU. One arena: 120 fewer page faults and
// 2-3 ms less between the check and its probe alone on two vCPUs (docs/performance.md). Small blocks
// come from each thread's cache (tcache) without the arena's lock, and the collectors allocate little.
// That arena's heap is then grown by the megabyte a check fills and faulted in by one call: on a VM a
// page fault costs microseconds (10.8 us a page against 5.8 us populated, bench/vm-costs); 260 fewer
// page faults here.
void prepare_heap() {
#if defined(M_ARENA_MAX)
  // Called before the check starts any thread: the limit applies to arenas created after it (mallopt(3)).
  mallopt(M_ARENA_MAX, 1);  // NOLINT(concurrency-mt-unsafe)
#endif
  (void)grow_heap_populated(std::size_t{1} << 20);
}

int run_check(const CheckArgs& a) {
  if (a.print_config) {
    write_output(default_config_toml(render_options(a.output).lang), a.output.out);
    return 0;
  }
  if (a.list) {
    RenderOptions ro = render_options(a.output);
    write_output(render_catalog(ro.lang, a.output.format == "md" ? "md" : "text"), a.output.out);
    return 0;
  }
  prepare_heap();  // before any thread; not for the two listings above, which print and end
  Config cfg = load_config_or_throw(a.machine.config);
  if (a.expect_gpus >= 0) cfg.thresholds.set("gpu.expected_count", a.expect_gpus);
  Selection sel = make_selection(a.only, a.skip, cfg.skip);
  Context ctx = make_context(a.machine);
  ctx.bench = a.bench;
  SchedulerRun sched = prepare_scheduler_mode(a.sched, sel, ctx, render_options(a.output).lang);
  check_output(a.output);  // fails early with the hint; validates --lang

  auto start = std::chrono::steady_clock::now();
  Report r;
  r.facts.meta.tool_version = plumb_version();
  r.facts.meta.command = "check";
  r.facts.meta.started_at = now_iso8601();
  r.facts.meta.hostname = host_name(ctx.root);
  r.facts.meta.root = ctx.root.root();
  r.facts.meta.target_pid = ctx.pid;
  // The history database opens (a transaction: file syncs that take milliseconds on a busy disk)
  // while the collectors run; the main thread only waits for them meanwhile.
  auto opening = std::async(std::launch::async, [&] { return open_history_for_check(a.history, ctx.root.root()); });
  CollectionTimings timings;
  // The rules that read no slow collector's facts are judged while the slow ones (the framework
  // probe's interpreter) still run, and their findings converted for the JSON document then.
  // The facts areas no slow collector writes are printed as JSON then too (for the report and
  // the history database); meta and bench are written after the collection, by this function.
  const RenderOptions ro = render_options(a.output);
  const bool writes_json = a.output.format == "json" || !a.save.empty();
  const bool records = check_records_history(a.history, ctx.root.root());
  SplitJudgement judgement;
  std::vector<std::string> early_json, early_record;
  FactsText facts_text;
  collect(ctx, sel, r.facts, a.timings ? &timings : nullptr, [&](const Facts& partial) {
    judgement.judge_early(partial, cfg.thresholds, sel, slow_collector_ids(ctx));
    if (writes_json || records) {
      std::set<std::string> later = slow_collector_areas(ctx);
      later.insert({"meta", "bench"});
      facts_text.prepare(partial, later);
    }
    if (records) {
      early_record.reserve(judgement.early().size());
      for (const auto& f : judgement.early()) early_record.push_back(finding_record_text(f));
    }
    if (!writes_json) return;
    early_json.reserve(judgement.early().size());
    for (const auto& f : judgement.early()) early_json.push_back(finding_json_text(f, ro));
  });
  auto history = opening.get();
  if (r.facts.bench.collected) {
    attach_baseline(r.facts, history.get(), a.history);
    attach_earlier_runs(r.facts, history.get());
  }
  r.facts.meta.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.findings = judgement.judge_rest(r.facts, cfg.thresholds, sel);
  // Each finding printed early at its place in r.findings (none when that form was not printed).
  auto placed = [&](const std::vector<std::string>& texts) {
    std::vector<const std::string*> at(texts.empty() ? 0 : r.findings.size(), nullptr);
    for (std::size_t k = 0; k < texts.size(); ++k) at[judgement.early_positions()[k]] = &texts[k];
    return at;
  };
  PreparedJson prepared{placed(early_json), &facts_text};
  PreparedRecord record{&facts_text, placed(early_record)};
  // --timings: facts.meta.timings in every JSON this run writes, the table on stderr at the end.
  auto json_text = [&] {
    std::string text = render_json_text(r, ro, prepared);
    return a.timings ? with_timings(text, timings) : text;
  };
  if (!a.save.empty()) {
    auto w = write_file_atomic(a.save, json_text());
    if (!w) throw UsageError(w.error().message);
  }
  // Recording (more file syncs) overlaps rendering: both only read the report.
  auto recording = std::async(std::launch::async, [&] { record_report(history.get(), r, true, &record); });
  if (!a.sched.active()) {
    if (a.output.format == "json") {
      write_output(json_text(), a.output.out);  // the output was checked before collecting
    } else {
      emit(r, a.output);
    }
  }
  recording.get();
  if (a.timings) {
    double command_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::cerr << render_timings(timings, command_ms, render_options(a.output).lang);
  }
  if (a.sched.active()) return finish_scheduler_mode(a.sched, sched, r, render_options(a.output).lang);
  return exit_code_for(r.findings);
}

struct ReportArgs {
  std::string snapshot;
  OutputOptions output;
  std::string config;
  std::vector<std::string> only, skip;
};

int run_report(const ReportArgs& a) {
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

}  // namespace

void prestart_check_probe(int argc, char** argv) {
  if (argc < 2 || std::string_view(argv[1]) != "check") return;
  // Options that change neither which interpreter runs nor whether the probe runs at all; values
  // (words not starting with '-', or a lone '-') pass. --root, --pid, --python, --only, --skip,
  // --config, --list, --help and the scheduler modes leave the probe to its collector.
  static constexpr std::string_view kNeutral[] = {"--format", "-f",        "--lang",  "--out",     "-o",
                                                  "--no-history", "--timings", "--save", "--expect-gpus",
                                                  "--bench",  "--timeout", "--db",    "--baseline", "--nvml-lib",
                                                  "--kmsg",   "--data",    "--model-repo", "--verbose", "-v",
                                                  "--quiet",  "-q",        "--cuda-context"};
  for (int i = 2; i < argc; ++i) {
    std::string_view word = argv[i];
    if (word.size() < 2 || word[0] != '-') continue;
    std::string_view name = word.substr(0, word.find('='));
    if (std::find(std::begin(kNeutral), std::end(kNeutral), name) == std::end(kNeutral)) return;
  }
  try {
    (void)prestart_python_probe(Context{});
  } catch (...) {  // runs before main: nothing may escape; the collector runs the probe as usual
  }
}

namespace {

const bool kCmdCheck = register_subcommand({"check", "health check of this machine (or a --root fixture tree)", 10,
                                         [](CLI::App& app) {
                                           auto a = std::make_shared<CheckArgs>();
                                           add_machine_options(app, a->machine);
                                           add_output_options(app, a->output, report_formats_with_prom());
                                           app.add_option("--only", a->only, "run only these check ids or prefixes (comma-separated)");
                                           app.add_option("--skip", a->skip, "skip these check ids or prefixes (comma-separated)");
                                           app.add_option("--save", a->save, "also save the snapshot (JSON) to FILE");
                                           app.add_option("--bench", a->bench, "quick|none: run the quick benchmarks too")
                                               ->check(CLI::IsMember({"quick", "none"}))
                                               ->capture_default_str();
                                           app.add_option("--expect-gpus", a->expect_gpus,
                                                          "fail unless exactly N GPUs are usable (threshold gpu.expected_count)")
                                               ->check(CLI::Range(0, 4096));
                                           app.add_flag("--list", a->list, "list every check with its id and description");
                                           app.add_flag("--print-config", a->print_config, "print the default thresholds as TOML");
                                           add_timings_option(app, a->timings);
                                           add_history_options(app, a->history, true);
                                           add_scheduler_options(app, a->sched);
                                           return [a] { return run_scheduler_guarded(a->sched, a->output.lang, [a] { return run_check(*a); }); };
                                         }});

const bool kReport = register_subcommand({"report", "judge and render a saved snapshot again (any format)", 60,
                                          [](CLI::App& app) {
                                            auto a = std::make_shared<ReportArgs>();
                                            app.add_option("snapshot", a->snapshot, "snapshot JSON written by check --save")->required();
                                            add_output_options(app, a->output, report_formats_with_prom());
                                            app.add_option("--config", a->config, "TOML file overriding thresholds");
                                            app.add_option("--only", a->only, "judge only these check ids or prefixes");
                                            app.add_option("--skip", a->skip, "skip these check ids or prefixes");
                                            return [a] { return run_report(*a); };
                                          }});

}  // namespace
}  // namespace plumb
