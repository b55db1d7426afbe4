// The pipeline of `plumb agent` (state -> kernel events -> collect -> judge over time -> store ->
// render, once or in a loop) and of `plumb events` (the stored history, acknowledgements).
#include "engine/agent.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "collect/error_counters.h"
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
#include "report/prom_report_metrics.h"
#include "report/table.h"
#include "rules/history.h"
#include "serve/http.h"
#include "store/fleet_store.h"

namespace plumb {

namespace {

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

namespace {

// The kernel log lines written since the stored cursor of this boot, as events, stored with the
// cursor after them in one transaction; the number of new events. A log that cannot be read is
// said in one line and the cycle goes on (the events come the next time it can be read).
int store_new_kernel_events(const AgentOptions& a, const Context& ctx, const std::string& boot, EventStore& store, Lang lang) {
  const std::string source = a.machine.kmsg.empty() ? "/dev/kmsg" : a.machine.kmsg;
  auto from = store.cursor(boot, source);
  if (!from) throw UsageError(from.error().message);
  auto read = read_kmsg_since(ctx.root, a.machine.kmsg, *from);
  if (!read) {
    std::cerr << "plumb: " << fill(tr(lang, "agent.kmsg_unread"), {{"reason", read.error().message}}) << "\n";
    return 0;
  }
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
  if (events.empty() && read->next == *from) return 0;  // nothing new: no write
  auto w = store.add_events(boot, source, events, read->next);
  if (!w) throw UsageError(w.error().message);
  return *w;
}

// The stored results of this boot as the failing findings of each cycle.
std::vector<PastCycle> past_cycles(const std::vector<CycleResult>& results) {
  std::vector<PastCycle> out;
  for (const auto& r : results) {
    PastCycle c;
    c.time = r.time;
    // The store is a file on the node: a row that is not the JSON this plumb wrote is skipped.
    json arr = json::parse(r.findings, nullptr, false);
    if (!arr.is_array()) continue;
    for (const auto& f : arr) {
      if (!f.is_object() || !f.contains("id") || !f["id"].is_string() || !f.contains("subject") || !f["subject"].is_string()) continue;
      const bool failing = f.value("status", std::string()) == "fail" || f.value("held", false);
      if (failing) c.failing.push_back(f["id"].get<std::string>() + "|" + f["subject"].get<std::string>());
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string findings_summary(const std::vector<Finding>& findings) {
  json arr = json::array();
  for (const auto& f : findings) {
    if (f.status == Status::pass) continue;
    json o = {{"id", f.id}, {"subject", f.subject}, {"status", status_name(f.status)}};
    if (f.args.count("held") != 0) o["held"] = true;
    arr.push_back(std::move(o));
  }
  return arr.dump();
}

}  // namespace

Result<bool> attach_agent_history(Facts& facts, EventStore& store, const std::string& boot, const std::string& now) {
  auto stored = store.events();
  if (!stored) return stored.error();
  std::reverse(stored->begin(), stored->end());  // oldest first
  auto samples = store.samples(boot);
  if (!samples) return samples.error();
  auto results = store.results_of_boot(boot);
  if (!results) return results.error();
  auto& h = facts.events;
  h.collected = true;
  h.boot_id = boot;
  h.state_db = store.path();
  h.now = now;
  h.events = std::move(stored.value());
  h.samples = std::move(samples.value());
  h.cycles = past_cycles(*results);
  return true;
}

bool attach_agent_state(Facts& facts, const HostRoot& root, const std::string& state_dir, Lang lang) {
  const std::string path = agent_db_path(state_dir);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;  // no agent on this node: nothing to add, nothing created
  auto not_used = [&](const std::string& why) {
    std::cerr << "plumb: " << fill(tr(lang, "agent.state_not_used"), {{"db", path}, {"reason", why}}) << "\n";
    return false;
  };
  auto boot = read_boot_id(root);
  if (!boot) return not_used(boot.error().message);
  EventStoreNotice notice;
  auto store = EventStore::open(state_dir, &notice);
  if (!store) return not_used(store.error().message);
  if (!notice.moved_to.empty()) return not_used(fill(tr(lang, "agent.moved_aside"), {{"db", path}, {"to", notice.moved_to}, {"reason", notice.reason}}));
  auto a = attach_agent_history(facts, **store, *boot, now_iso8601());
  if (!a) return not_used(a.error().message);
  return true;
}

Report run_agent_cycle(const AgentOptions& a, const Context& ctx, const Config& cfg, const Selection& sel, EventStore& store) {
  const Lang lang = render_options(a.output).lang;
  auto boot = read_boot_id(ctx.root);
  if (!boot) throw UsageError("agent: cannot read the boot id: " + boot.error().message);
  // state: what this boot's kernel log says since the last read
  store_new_kernel_events(a, ctx, *boot, store, lang);
  const auto retention_s = static_cast<long long>(cfg.thresholds.get("history.retention_days") * 86400.0);
  if (auto p = store.prune(iso8601_seconds_ago(retention_s)); !p) throw UsageError(p.error().message);
  const auto max_bytes = static_cast<std::int64_t>(cfg.thresholds.get("history.max_db_mb") * 1048576.0);
  if (auto p = store.shrink_to(max_bytes); !p) throw UsageError(p.error().message);
  // collect: the check's own collectors, then the error counters (sysfs, and NVML's through the
  // check's GPU facts), stored when they changed
  Report r = collect_check_report(ctx, sel, nullptr, "agent");
  const std::string now = now_iso8601();
  std::vector<CounterSample> counters = read_error_counters(ctx.root);
  for (auto& c : gpu_error_counters(r.facts.gpu)) counters.push_back(std::move(c));
  for (auto& c : counters) c.time = now;
  if (auto w = store.add_samples(*boot, counters); !w) throw UsageError(w.error().message);
  if (auto a2 = attach_agent_history(r.facts, store, *boot, now); !a2) throw UsageError(a2.error().message);
  // judge: the check's rules and the rules over time; link states must persist before they fail
  r.findings = judge(r.facts, cfg.thresholds, sel);
  hold_until_persistent(r.findings, r.facts.events, cfg.thresholds);
  // store: the cycle's result
  CycleResult res;
  res.time = now;
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

namespace {

// What the loopback server serves; each page is swapped whole under the mutex, so a request only
// copies prepared text.
struct AgentPages {
  std::mutex mu;
  std::string metrics = "";
  std::string state = "{}\n";
};

std::string metrics_page(const Report* r, const std::map<std::string, std::int64_t>& counts, std::uint64_t cycles, Lang lang) {
  prom::Exposition out(lang);
  if (r != nullptr) watch::add_report_metrics(out, *r);
  for (const auto& [kind, n] : counts) out.gauge("plumb_agent_events", "prom.help.plumb_agent_events", {{"kind", kind}}, static_cast<double>(n));
  out.counter("plumb_agent_cycles_total", "prom.help.plumb_agent_cycles_total", {}, static_cast<double>(cycles));
  out.gauge("plumb_agent_update_timestamp_seconds", "prom.help.plumb_agent_update_timestamp_seconds", {},
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
  return out.str();
}

std::string state_page(const Report* r, const std::map<std::string, std::int64_t>& counts, std::uint64_t cycles, const std::string& db) {
  json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["tool"] = {{"name", "plumb"}, {"version", plumb_version()}};
  doc["state_db"] = db;
  doc["updated"] = now_iso8601();
  doc["cycles"] = cycles;
  json by_kind = json::object();
  std::int64_t total = 0;
  for (const auto& [kind, n] : counts) {
    by_kind[kind] = n;
    total += n;
  }
  doc["events"] = {{"total", total}, {"by_kind", by_kind}};
  if (r != nullptr) {
    const auto& h = r->facts.events;
    json last = json::parse(findings_summary(r->findings));
    doc["boot_id"] = h.boot_id;
    doc["last_cycle"] = {{"time", h.now}, {"exit_code", exit_code_for(r->findings)}, {"findings", last}};
  }
  return doc.dump(2) + "\n";
}

}  // namespace

int run_agent(const AgentOptions& a) {
  const RenderOptions ro = check_output(a.output);  // fails early with the hint; validates --lang
  if (a.interval_s <= 0) throw UsageError("agent: --interval must be positive");
  if (a.follow_ms < 100) throw UsageError("agent: --follow must be at least 100ms");
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
  // The loop: a cycle every --interval +/- 10 % (so that a fleet's agents started together do not
  // check together), the kernel log followed every --follow between cycles, until SIGINT or
  // SIGTERM. A cycle that fails (a locked database) is said in one line and the next one tries
  // again. The state is served on loopback while the loop runs (--listen none: not at all).
  watch::StopSignal stop;
  std::unique_ptr<http::Server> server;
  if (a.listen != "none") {
    auto where = http::parse_listen(a.listen);
    if (!where) throw UsageError("--listen " + where.error().message);
    auto s = http::Server::listen(where->first, where->second, http::Limits{});
    if (!s) throw UsageError(s.error().message);
    server = std::move(s.value());
    std::string shown = (where->first.find(':') != std::string::npos ? "[" + where->first + "]" : where->first) + ":" + std::to_string(server->port());
    std::cout << fill(tr(ro.lang, "agent.listening"), {{"address", shown}}) << std::endl;
    if (!http::is_loopback(where->first)) std::cerr << fill(tr(ro.lang, "exporter.not_loopback"), {{"address", shown}}) << "\n";
  }
  AgentPages pages;
  int rc = 0;
  auto loop = [&] {
    std::mt19937 jitter(std::random_device{}());
    std::uniform_real_distribution<double> spread(0.9, 1.1);
    std::optional<Report> last;
    std::uint64_t cycles = 0;
    auto publish = [&] {
      auto counts = store->event_counts();
      std::map<std::string, std::int64_t> c = counts ? *counts : std::map<std::string, std::int64_t>{};
      std::string m = metrics_page(last ? &*last : nullptr, c, cycles, ro.lang);
      std::string st = state_page(last ? &*last : nullptr, c, cycles, store->path());
      std::lock_guard<std::mutex> lock(pages.mu);
      pages.metrics = std::move(m);
      pages.state = std::move(st);
    };
    auto next_cycle = std::chrono::steady_clock::now();
    while (!stop.stopped()) {
      const auto t = std::chrono::steady_clock::now();
      try {
        if (t >= next_cycle) {
          Report r = run_agent_cycle(a, ctx, cfg, sel, *store);
          render(r);
          rc = exit_code_for(r.findings);
          last = std::move(r);
          ++cycles;
          publish();
          next_cycle = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<long long>(a.interval_s * 1000.0 * spread(jitter)));
        } else {
          auto boot = read_boot_id(ctx.root);
          if (boot && store_new_kernel_events(a, ctx, *boot, *store, ro.lang) > 0) publish();
        }
      } catch (const std::exception& e) {
        std::cerr << "plumb: " << e.what() << "\n";
        rc = 2;
        next_cycle = std::chrono::steady_clock::now() + std::chrono::seconds(a.interval_s);
      }
      const auto until = std::chrono::ceil<std::chrono::milliseconds>(next_cycle - std::chrono::steady_clock::now()).count();
      if (stop.wait(static_cast<int>(std::clamp<long long>(until, 0, a.follow_ms)))) break;
    }
  };
  if (!server) {
    loop();
    return rc;
  }
  // The loop is not data-parallel work (core/parallel.h): one thread beside the server's poll loop.
  std::thread worker(loop);
  server->run(stop.fd(), [&](const http::Request& req) -> http::Response {
    std::lock_guard<std::mutex> lock(pages.mu);
    if (req.path == "/metrics") return {200, "text/plain; version=0.0.4; charset=utf-8", pages.metrics, {}};
    if (req.path == "/state") return {200, "application/json", pages.state, {}};
    if (req.path == "/healthz") return {200, "text/plain; charset=utf-8", "ok\n", {}};
    if (req.path == "/") return {200, "text/plain; charset=utf-8", tr(ro.lang, "agent.index") + "\n", {}};
    return {404, "text/plain; charset=utf-8", "not found\n", {}};
  });
  worker.join();
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
        {"agent.listening", {"plumb agent serving its state on http://{address}/ (/metrics, /state)",
                             "plumb agent 正在 http://{address}/ 提供状态（/metrics、/state）"}},
        {"agent.state_not_used", {"the agent's history in {db} was not judged: {reason}", "未判断 {db} 中 agent 的历史：{reason}"}},
        {"agent.index", {"plumb agent: /metrics (Prometheus, with event counts), /state (JSON), /healthz (liveness)",
                         "plumb agent：/metrics（Prometheus，含事件计数）、/state（JSON）、/healthz（存活检查）"}},
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
