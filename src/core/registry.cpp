// Collector and rule tables, selection by id prefix, and the deadline-bound collection run.
#include "core/registry.h"

#include <unistd.h>

#include <algorithm>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>

#include "core/catalog.h"
#include "core/tables.h"
#include "core/collect_timing.h"
#include "core/deadline.h"
#include "core/json.h"
#include "core/suggest.h"

namespace plumb {

namespace {

// The id itself, or an id under the selector taken as a prefix of whole dot-separated parts
// ("l3.compute" selects "l3.compute.cpu_governor", not "l3.computer").
bool matches_exactly(std::string_view sel, std::string_view id) {
  if (sel == id) return true;
  if (id.substr(0, sel.size()) != sel) return false;
  if (sel.empty() || sel.back() == '.') return true;
  return id.size() > sel.size() && id[sel.size()] == '.';
}

// A selector matches an id, or an old id an alias maps onto it (for a rule: an alias without a
// source, or one naming the rule's source). The alias's chain is followed only for an alias the
// selector names: a selection is matched against every rule and collector.
bool matches(const std::string& sel, const std::string& id, const std::string* source = nullptr) {
  if (matches_exactly(sel, id)) return true;
  return std::any_of(aliases().begin(), aliases().end(), [&](const IdAlias& a) {
    if (!matches_exactly(sel, a.from)) return false;
    if (source != nullptr && !a.source.empty() && a.source != *source) return false;
    return canonical_id(a.from) == id;
  });
}

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

struct Outcome {
  ApplyFacts apply;
  std::string error;
  Clock::time_point begin, end;  // the collector's own run on its thread
  long thread = 0;
};

// A collector started on its own thread; the worker owns its copies, so if it is abandoned at
// the deadline it touches nothing of ours.
struct Started {
  const CollectorInfo* info;
  std::future<Outcome> result;
  Clock::time_point start;
  std::chrono::milliseconds deadline;
};

// One collector's run on the calling thread: what it read, or the error it threw.
Outcome run_collector_body(const std::function<ApplyFacts(const Context&)>& fn, const Context& ctx) {
  Outcome o;
  o.begin = Clock::now();
  o.thread = static_cast<long>(::gettid());
  try {
    o.apply = fn(ctx);
  } catch (const std::exception& e) {
    o.error = e.what();
  } catch (...) {
    o.error = "unknown exception";
  }
  o.end = Clock::now();
  return o;
}

Started start_collector(const CollectorInfo& c, const Context& ctx) {
  auto promise = std::make_shared<std::promise<Outcome>>();
  Started s{&c, promise->get_future(), Clock::now(), c.deadline.count() > 0 ? c.deadline : ctx.deadline};
  // Detached, not a task group (core/parallel.h): a collector past its deadline is abandoned, never joined.
  std::thread([promise, fn = c.run, ctx]() { promise->set_value(run_collector_body(fn, ctx)); }).detach();
  return s;
}

// Waits for the collector (until its deadline) and applies what it read. duration_ms is its own
// run when it answered, the time waited when it did not.
CollectorRun finish_collector(Started& s, Facts& facts, Clock::time_point run_start, CollectorTiming* timing) {
  CollectorRun run{s.info->id, "ok", 0, {}};
  CollectorTiming t{s.info->id, "", ms_between(run_start, s.start), 0, 0};
  const bool ready = s.result.wait_until(s.start + s.deadline) == std::future_status::ready;
  if (!ready) {
    note_abandoned_thread();
    run.status = "timed out";
    run.error = "no answer within " + std::to_string(s.deadline.count()) + " ms";
    run.duration_ms = ms_between(s.start, Clock::now());
  } else {
    Outcome o = s.result.get();
    if (!o.error.empty()) {
      run.status = "error";
      run.error = o.error;
    } else if (o.apply) {
      o.apply(facts);
    }
    run.duration_ms = ms_between(o.begin, o.end);
    t.start_ms = ms_between(run_start, o.begin);
    t.thread = o.thread;
  }
  t.status = run.status;
  t.duration_ms = run.duration_ms;
  if (timing != nullptr) *timing = std::move(t);
  return run;
}

// The table sorted by id, checked once: a duplicate is a programming error.
template <class Info, class Less, class Same>
std::vector<Info> sorted_table(const std::vector<Info>& rows, Less less, Same same, const char* what) {
  std::vector<Info> t = rows;
  std::stable_sort(t.begin(), t.end(), less);
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (same(t[i - 1], t[i])) throw std::logic_error(std::string("duplicate ") + what + " " + t[i].id);
  }
  return t;
}
}  // namespace

const std::vector<CollectorInfo>& collectors() {
  static const std::vector<CollectorInfo> t = sorted_table(
      tables().collectors, [](const auto& a, const auto& b) { return a.id < b.id; },
      [](const auto& a, const auto& b) { return a.id == b.id; }, "collector");
  return t;
}
const std::vector<RuleInfo>& rules() {
  static const std::vector<RuleInfo> t = sorted_table(
      tables().rules, [](const auto& a, const auto& b) { return a.id != b.id ? a.id < b.id : a.source < b.source; },
      [](const auto& a, const auto& b) { return a.id == b.id && a.source == b.source; }, "rule");
  return t;
}

bool Selection::selects(const std::string& id) const {
  for (const auto& s : skip) {
    if (matches(s, id)) return false;
  }
  if (only.empty()) return true;
  return std::any_of(only.begin(), only.end(), [&](const auto& s) { return matches(s, id); });
}

bool Selection::selects(const RuleInfo& rule) const {
  for (const auto& s : skip) {
    if (matches(s, rule.id, &rule.source)) return false;
  }
  if (only.empty()) return true;
  return std::any_of(only.begin(), only.end(), [&](const auto& s) { return matches(s, rule.id, &rule.source); });
}

std::vector<std::string> unknown_selectors(const Selection& sel) {
  std::vector<std::string> ids;
  for (const auto& c : collectors()) ids.push_back(c.id);
  for (const auto& r : rules()) ids.push_back(r.id);
  for (const auto& a : aliases()) ids.push_back(a.from);
  std::vector<std::string> bad;
  for (const auto* list : {&sel.only, &sel.skip}) {
    for (const auto& s : *list) {
      bool known = std::any_of(ids.begin(), ids.end(), [&](const auto& id) { return matches(s, id); });
      if (known) continue;
      std::string hint = closest(s, ids);
      bad.push_back("unknown check '" + s + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
  }
  return bad;
}

void collect(const Context& ctx, const Selection& sel, Facts& facts) { collect(ctx, sel, facts, nullptr); }

void collect(const Context& ctx, const Selection& sel, Facts& facts, CollectionTimings* timings) {
  // A collector runs when selected itself or when a selected rule needs it.
  std::vector<const CollectorInfo*> todo;
  for (const auto& c : collectors()) {
    if (!c.in_check) continue;
    bool needed = false;    // a selected rule needs it
    bool dependents = false;  // some rule needs it at all
    for (const auto& r : rules()) {
      if (std::find(r.needs.begin(), r.needs.end(), c.id) == r.needs.end()) continue;
      dependents = true;
      if (sel.selects(r)) needed = true;
    }
    bool skipped_explicitly = false;
    for (const auto& s : sel.skip) skipped_explicitly |= matches(s, c.id);
    // Without --only every collector runs (a complete snapshot), except one whose every dependent
    // rule was skipped: `--skip l3.framework` does not start the Python probe.
    bool wanted = sel.only.empty() ? (needed || !dependents) : (sel.selects(c.id) || needed);
    if (wanted && !skipped_explicitly) todo.push_back(&c);
  }
  run_collectors(todo, ctx, facts, timings);
}

void run_collectors(const std::vector<const CollectorInfo*>& todo, const Context& ctx, Facts& facts,
                    CollectionTimings* timings) {
  // All start at once; results are applied in table order, so Facts do not depend on timing.
  auto run_start = Clock::now();
  std::vector<Started> running;
  running.reserve(todo.size());
  for (const CollectorInfo* c : todo) running.push_back(start_collector(*c, ctx));
  std::vector<CollectorTiming> measured(todo.size());
  for (std::size_t i = 0; i < todo.size(); ++i) {
    facts.meta.collectors.push_back(finish_collector(running[i], facts, run_start, &measured[i]));
  }
  if (timings == nullptr) return;
  timings->total_ms = ms_between(run_start, Clock::now());
  timings->collectors = std::move(measured);
}

bool collect_one(const Context& ctx, const std::string& id, Facts& facts) {
  for (const auto& c : collectors()) {
    if (c.id == id) {
      auto s = start_collector(c, ctx);
      facts.meta.collectors.push_back(finish_collector(s, facts, s.start, nullptr));
      return true;
    }
  }
  return false;
}

std::vector<CollectorTiming> by_duration(const CollectionTimings& t) {
  auto v = t.collectors;
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.duration_ms != b.duration_ms ? a.duration_ms > b.duration_ms : a.id < b.id;
  });
  return v;
}

json timings_json(const CollectionTimings& t) {
  json arr = json::array();
  for (const auto& c : by_duration(t)) {
    arr.push_back({{"id", c.id}, {"status", c.status}, {"start_ms", c.start_ms}, {"duration_ms", c.duration_ms},
                   {"thread", c.thread}});
  }
  return {{"total_ms", t.total_ms}, {"collectors", std::move(arr)}};
}

namespace {
// The first collector a rule reads that did not answer by its deadline, or null.
const CollectorRun* timed_out_need(const RuleInfo& r, const Facts& facts) {
  for (const auto& c : facts.meta.collectors) {
    if (c.status == "timed out" && std::find(r.needs.begin(), r.needs.end(), c.id) != r.needs.end()) return &c;
  }
  return nullptr;
}

// One rule's findings appended to `out`; a rule that throws adds a skip finding naming the error.
// A skip of a rule whose collector timed out says so (the fact's own reason would be "not
// collected"), and carries the collector as `timed_out`: such a run is incomplete, not clean.
void judge_rule(const RuleInfo& r, const Facts& facts, const Thresholds& th, std::vector<Finding>& out) {
  const CollectorRun* late = timed_out_need(r, facts);
  try {
    for (auto& f : r.judge(facts, th)) {
      if (f.id != r.id) throw std::logic_error("rule " + r.id + " returned finding " + f.id);
      if (late != nullptr && f.status == Status::skip) {
        f.args["reason"] = late->id + " timed out (" + late->error + ")";
        f.args["timed_out"] = late->id;
      }
      out.push_back(std::move(f));
    }
  } catch (const std::exception& e) {
    out.push_back(skipped(r.id, std::string("internal error: ") + e.what()));
  }
}
}  // namespace

std::vector<Finding> judge(const Facts& facts, const Thresholds& th, const Selection& sel) {
  std::vector<Finding> out;
  for (const auto& r : rules()) {
    if (r.judge && sel.selects(r)) judge_rule(r, facts, th, out);
  }
  return out;
}

Finding skipped(const std::string& id, const std::string& reason, const std::string& subject) {
  Finding f;
  f.id = id;
  f.status = Status::skip;
  f.subject = subject;
  f.args["reason"] = reason;
  return f;
}

}  // namespace plumb
