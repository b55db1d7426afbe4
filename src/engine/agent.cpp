// The pipeline of `plumb agent` (state -> kernel events -> collect -> judge over time -> store ->
// render, once or in a loop) and of `plumb events` (the stored history, acknowledgements).
#include "engine/agent.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <random>

#include "collect/kernel_events.h"
#include "core/iso_time.h"
#include "core/json.h"
#include "core/terminal_text.h"
#include "core/snapshot.h"
#include "core/tables.h"
#include "core/text.h"
#include "core/version.h"
#include "engine/check.h"
#include "engine/stop_signal.h"
#include "report/table.h"
#include "rules/history.h"
#include "store/fleet_store.h"

namespace plumb {

namespace {

std::string findings_summary(const std::vector<Finding>& findings) {
  json arr = json::array();
  for (const auto& f : findings) {
    if (f.status == Status::pass) continue;
    arr.push_back({{"id", f.id}, {"subject", f.subject}, {"status", status_name(f.status)}});
  }
  return arr.dump();
}

// A reason an operator typed: one line, bounded.
void check_reason(const std::string& reason) {
  if (trim(reason).empty()) throw UsageError("events ack: --reason TEXT is required (why the event no longer counts)");
  if (reason.size() > 1000) throw UsageError("events ack: --reason is longer than 1000 bytes");
  if (std::any_of(reason.begin(), reason.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    throw UsageError("events ack: --reason must be one line of text without control characters");
  }
}

// --store: the cycle's result, and whatever earlier cycles could not send, to the fleet store. A
// store that is down or slow costs one line on stderr; the rows wait in the local database.
void push_to_fleet_store(const AgentOptions& a, const Report& r, std::int64_t result_id, EventStore& store) {
  FleetCycle c = fleet_cycle_of(r.facts);
  c.result_id = result_id;
  c.snapshot = render_json_text(r, render_options(a.output));
  if (auto p = push_cycle(a.store, c, store); !p) {
    std::cerr << "plumb: " << fill(tr(render_options(a.output).lang, "agent.push_failed"), {{"reason", p.error().message}}) << "\n";
  }
}

}  // namespace

std::unique_ptr<EventStore> open_event_store_or_throw(const std::string& state_dir, Lang lang) {
  EventStoreNotice notice;
  auto store = EventStore::open(state_dir, &notice);
  if (!store) throw UsageError(store.error().message);
  if (!notice.moved_to.empty()) {
    std::cerr << "plumb: "
              << fill(tr(lang, "agent.moved_aside"), {{"db", (*store)->path()}, {"to", notice.moved_to}, {"reason", notice.reason}})
              << "\n";
  }
  return std::move(store.value());
}

Report run_agent_cycle(const AgentOptions& a, const Context& ctx, const Config& cfg, const Selection& sel, EventStore& store) {
  auto boot = read_boot_id(ctx.root);
  if (!boot) throw UsageError("agent: cannot read the boot id: " + boot.error().message);
  // state: what this boot's kernel log says since the last cycle
  const std::string source = a.machine.kmsg.empty() ? "/dev/kmsg" : a.machine.kmsg;
  auto from = store.cursor(*boot, source);
  if (!from) throw UsageError(from.error().message);
  auto read = read_kmsg_since(ctx.root, a.machine.kmsg, *from);
  if (read) {
    const std::string now = now_iso8601();
    std::vector<std::pair<std::uint64_t, NodeEvent>> events;
    for (const auto& line : read->lines) {
      auto k = parse_kernel_event(line.message);
      if (!k) continue;
      NodeEvent e;
      e.time = now;
      e.kind = k->kind;
      e.subject = k->subject;
      e.code = k->code;
      e.evidence = k->evidence;
      e.finding = finding_for_event_kind(k->kind, k->code);
      events.emplace_back(line.pos, std::move(e));
    }
    if (auto w = store.add_events(*boot, source, events, read->next); !w) throw UsageError(w.error().message);
  } else {
    std::cerr << "plumb: " << fill(tr(render_options(a.output).lang, "agent.kmsg_unread"), {{"reason", read.error().message}}) << "\n";
  }
  const auto retention_s = static_cast<long long>(cfg.thresholds.get("history.retention_days") * 86400.0);
  if (auto p = store.prune(iso8601_seconds_ago(retention_s)); !p) throw UsageError(p.error().message);
  // collect: the check's own collectors
  Report r = collect_check_report(ctx, sel, nullptr, "agent");
  auto stored = store.events();
  if (!stored) throw UsageError(stored.error().message);
  std::reverse(stored->begin(), stored->end());  // oldest first
  r.facts.events.collected = true;
  r.facts.events.boot_id = *boot;
  r.facts.events.state_db = store.path();
  r.facts.events.events = std::move(stored.value());
  // judge: the check's rules and the rules over time
  r.findings = judge(r.facts, cfg.thresholds, sel);
  // store: the cycle's result
  CycleResult res;
  res.time = now_iso8601();
  res.boot_id = *boot;
  res.exit_code = exit_code_for(r.findings);
  res.failures = static_cast<int>(std::count_if(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.status == Status::fail; }));
  res.warnings = static_cast<int>(std::count_if(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.status == Status::warn; }));
  res.findings = findings_summary(r.findings);
  auto id = store.add_result(res);
  if (!id) throw UsageError(id.error().message);
  if (!a.store.empty()) push_to_fleet_store(a, r, *id, store);
  return r;
}

int run_agent(const AgentOptions& a) {
  const RenderOptions ro = check_output(a.output);  // fails early with the hint; validates --lang
  if (a.interval_s <= 0) throw UsageError("agent: --interval must be positive");
  Config cfg = load_config_or_throw(a.machine.config);
  Selection sel = make_selection(a.only, a.skip, cfg.skip);
  Context ctx = make_context(a.machine);
  ctx.bench = a.no_bench ? "none" : "quick";
  if (auto pq = a.store.empty() ? Result<bool>(true) : load_libpq(); !pq) throw UsageError(pq.error().message);
  auto store = open_event_store_or_throw(a.state_dir, ro.lang);
  auto render = [&](const Report& r) {
    if (a.output.format == "json") write_output(render_json_text(r, ro), a.output.out);
    else emit(r, a.output);
  };
  if (a.once) {
    Report r = run_agent_cycle(a, ctx, cfg, sel, *store);
    render(r);
    return exit_code_for(r.findings);
  }
  // The loop: a cycle, then a wait of the interval +/- 10 % (so that a fleet's agents started
  // together do not check together), until SIGINT or SIGTERM. A cycle that fails (a locked
  // database) is said in one line and the next one tries again.
  watch::StopSignal stop;
  std::mt19937 jitter(std::random_device{}());
  std::uniform_real_distribution<double> spread(0.9, 1.1);
  int rc = 0;
  while (!stop.stopped()) {
    try {
      Report r = run_agent_cycle(a, ctx, cfg, sel, *store);
      render(r);
      rc = exit_code_for(r.findings);
    } catch (const UsageError& e) {
      std::cerr << "plumb: " << e.what() << "\n";
      rc = 2;
    }
    const auto wait_ms = static_cast<int>(std::min(2.0e9, a.interval_s * 1000.0 * spread(jitter)));
    if (stop.wait(wait_ms)) break;
  }
  return rc;
}

namespace {

json event_json(const NodeEvent& e) {
  return {{"id", e.id},           {"time", e.time}, {"boot_id", e.boot_id},   {"source", e.source},   {"kind", e.kind},
          {"subject", e.subject}, {"code", e.code}, {"evidence", e.evidence}, {"finding", e.finding}, {"acked", e.acked}};
}

int run_events_ack(const EventsOptions& a, Lang lang) {
  auto id = parse_int(a.id);
  if (!id || *id <= 0) throw UsageError("events ack: '" + a.id + "' is not an event id (a positive number from plumb events)");
  check_reason(a.reason);
  auto store = open_event_store_or_throw(a.state_dir, lang);
  auto done = store->ack(*id, now_iso8601(), a.reason);
  if (!done) throw UsageError(done.error().message);
  if (!*done) throw UsageError("events ack: no event " + a.id + " in " + store->path());
  std::cout << fill(tr(lang, "events.acked"), {{"id", a.id}, {"db", store->path()}}) << "\n";
  return 0;
}

}  // namespace

int run_events(const EventsOptions& a) {
  RenderOptions ro = check_output(a.output);  // fails early with the hint; validates --lang
  const Lang lang = ro.lang;
  if (a.action == "ack") return run_events_ack(a, lang);
  if (!a.action.empty()) throw UsageError("events: unknown action '" + a.action + "' (ack)");
  if (!a.id.empty() || !a.reason.empty()) throw UsageError("events: an event id and --reason go with `plumb events ack`");
  const std::string path = agent_db_path(a.state_dir);
  std::vector<NodeEvent> events;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {  // no database yet: no events, and nothing created
    auto store = open_event_store_or_throw(a.state_dir, lang);
    auto got = store->events(a.since_s > 0 ? iso8601_seconds_ago(a.since_s) : "", a.kind);
    if (!got) throw UsageError(got.error().message);
    events = std::move(got.value());
  }
  const std::string& fmt = a.output.format;
  if (fmt == "json") {
    json doc;
    doc["schema_version"] = kSchemaVersion;
    doc["tool"] = {{"name", "plumb"}, {"version", plumb_version()}};
    doc["lang"] = lang_code(lang);
    doc["state_db"] = path;
    json arr = json::array();
    for (const auto& e : events) arr.push_back(event_json(e));
    doc["events"] = std::move(arr);
    write_output(doc.dump(2) + "\n", a.output.out);
    return 0;
  }
  if (events.empty()) {
    write_output(fill(tr(lang, "events.empty"), {{"db", path}}) + "\n", a.output.out);
    return 0;
  }
  TextTable t{{tr(lang, "events.id"), tr(lang, "events.time"), tr(lang, "events.boot"), tr(lang, "events.kind"),
               tr(lang, "events.subject"), tr(lang, "events.code"), tr(lang, "events.finding"), tr(lang, "events.acked_col"),
               tr(lang, "events.evidence")}};
  for (const auto& e : events) {
    t.push_back({std::to_string(e.id), e.time, e.boot_id.substr(0, 8), e.kind, e.subject, e.code, e.finding,
                 e.acked ? tr(lang, "events.yes") : "", e.evidence});
  }
  const std::string title = tr(lang, "events.title");
  std::string body = render_table(t, fmt);
  // The evidence is kernel log text: read as text (terminal, Markdown), it goes through the
  // terminal filter like every report does (render_report); HTML escapes its cells.
  if (fmt == "html") write_output(render_html_page(title + " — " + path, body, lang), a.output.out);
  else if (fmt == "md") write_output(terminal_text("## plumb events: " + title + "\n\n" + body), a.output.out);
  else write_output(terminal_text(body), a.output.out);
  return 0;
}

void engine_agent_tables(Tables& t) {
  t.add_ui([] {
    return std::vector<UiString>{
        {"agent.moved_aside",
         {"state database {db} was corrupt ({reason}); moved it to {to} and started a fresh one",
          "状态数据库 {db} 已损坏（{reason}）；已移至 {to} 并新建数据库"}},
        {"agent.push_failed",
         {"fleet store push failed, the next cycle sends it again: {reason}", "推送到集群存储失败，下一轮将重新发送：{reason}"}},
        {"agent.kmsg_unread",
         {"kernel log not read this cycle: {reason}", "本轮未读取内核日志：{reason}"}},
        {"events.empty", {"no events recorded in {db}", "{db} 中没有记录事件"}},
        {"events.acked", {"event {id} acknowledged in {db}; it no longer counts toward escalation",
                          "事件 {id} 已在 {db} 中确认；不再计入升级判断"}},
        {"events.title", {"node events, newest first", "节点事件（最新在前）"}},
        {"events.id", {"id", "编号"}},
        {"events.time", {"time", "时间"}},
        {"events.boot", {"boot", "启动"}},
        {"events.kind", {"kind", "类型"}},
        {"events.subject", {"subject", "对象"}},
        {"events.code", {"code", "代码"}},
        {"events.finding", {"finding", "检查项"}},
        {"events.acked_col", {"acked", "已确认"}},
        {"events.yes", {"yes", "是"}},
        {"events.evidence", {"evidence", "证据"}},
    };
  });
}

}  // namespace plumb
