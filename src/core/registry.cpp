// Collector and rule tables, selection by id prefix, and the deadline-bound collection run.
#include "core/registry.h"

#include <algorithm>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>

#include "core/catalog.h"
#include "core/suggest.h"

namespace plumb {

namespace {
std::vector<CollectorInfo>& collector_table() {
  static std::vector<CollectorInfo> t;
  return t;
}
std::vector<RuleInfo>& rule_table() {
  static std::vector<RuleInfo> t;
  return t;
}

bool matches_exactly(const std::string& sel, const std::string& id) {
  if (sel == id) return true;
  std::string p = sel;
  if (!p.empty() && p.back() != '.') p += '.';
  return id.rfind(p, 0) == 0;
}

// A selector matches an id, or an old id an alias maps onto it (for a rule: an alias without a
// source, or one naming the rule's source).
bool matches(const std::string& sel, const std::string& id, const std::string* source = nullptr) {
  if (matches_exactly(sel, id)) return true;
  return std::any_of(aliases().begin(), aliases().end(), [&](const IdAlias& a) {
    if (canonical_id(a.from) != id) return false;
    if (source != nullptr && !a.source.empty() && a.source != *source) return false;
    return matches_exactly(sel, a.from);
  });
}

struct Outcome {
  ApplyFacts apply;
  std::string error;
};

// A collector started on its own thread; the worker owns its copies, so if it is abandoned at
// the deadline it touches nothing of ours.
struct Started {
  const CollectorInfo* info;
  std::future<Outcome> result;
  std::chrono::steady_clock::time_point start;
  std::chrono::milliseconds deadline;
};

Started start_collector(const CollectorInfo& c, const Context& ctx) {
  auto promise = std::make_shared<std::promise<Outcome>>();
  Started s{&c, promise->get_future(), std::chrono::steady_clock::now(),
            c.deadline.count() > 0 ? c.deadline : ctx.deadline};
  std::thread([promise, fn = c.run, ctx]() {
    Outcome o;
    try {
      o.apply = fn(ctx);
    } catch (const std::exception& e) {
      o.error = e.what();
    } catch (...) {
      o.error = "unknown exception";
    }
    promise->set_value(std::move(o));
  }).detach();
  return s;
}

CollectorRun finish_collector(Started& s, Facts& facts) {
  CollectorRun run{s.info->id, "ok", 0, {}};
  if (s.result.wait_until(s.start + s.deadline) != std::future_status::ready) {
    run.status = "timed out";
    run.error = "no answer within " + std::to_string(s.deadline.count()) + " ms";
  } else {
    Outcome o = s.result.get();
    if (!o.error.empty()) {
      run.status = "error";
      run.error = o.error;
    } else if (o.apply) {
      o.apply(facts);
    }
  }
  run.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s.start).count();
  return run;
}
}  // namespace

bool register_collector(CollectorInfo c) {
  collector_table().push_back(std::move(c));
  std::sort(collector_table().begin(), collector_table().end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  return true;
}

bool register_rule(RuleInfo r) {
  for (const auto& x : rule_table()) {
    if (x.id == r.id && x.source == r.source) throw std::logic_error("duplicate rule " + r.id + " (" + r.source + ")");
  }
  rule_table().push_back(std::move(r));
  std::sort(rule_table().begin(), rule_table().end(),
            [](const auto& a, const auto& b) { return a.id != b.id ? a.id < b.id : a.source < b.source; });
  return true;
}

const std::vector<CollectorInfo>& collectors() { return collector_table(); }
const std::vector<RuleInfo>& rules() { return rule_table(); }

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

void collect(const Context& ctx, const Selection& sel, Facts& facts) {
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
  // All start at once; results are applied in table order so Facts do not depend on timing.
  std::vector<Started> running;
  running.reserve(todo.size());
  for (const auto* c : todo) running.push_back(start_collector(*c, ctx));
  for (auto& s : running) facts.meta.collectors.push_back(finish_collector(s, facts));
}

bool collect_one(const Context& ctx, const std::string& id, Facts& facts) {
  for (const auto& c : collectors()) {
    if (c.id == id) {
      auto s = start_collector(c, ctx);
      facts.meta.collectors.push_back(finish_collector(s, facts));
      return true;
    }
  }
  return false;
}

std::vector<Finding> judge(const Facts& facts, const Thresholds& th, const Selection& sel) {
  std::vector<Finding> out;
  for (const auto& r : rules()) {
    if (!r.judge || !sel.selects(r)) continue;
    try {
      for (auto& f : r.judge(facts, th)) {
        if (f.id != r.id) throw std::logic_error("rule " + r.id + " returned finding " + f.id);
        out.push_back(std::move(f));
      }
    } catch (const std::exception& e) {
      out.push_back(skipped(r.id, std::string("internal error: ") + e.what()));
    }
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
