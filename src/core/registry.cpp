// Collector and rule tables, selection by id prefix, and the deadline-bound collection run.
#include "core/registry.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>

#include "core/catalog.h"
#include "core/collect_timing.h"
#include "core/facts_text.h"
#include "core/json.h"
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

thread_local std::optional<Clock::time_point> began_earlier;  // set by collector_began_at

// The calling thread as SCHED_BATCH from begin() to the end of the scope (threads it starts
// meanwhile inherit the policy), when it ran as SCHED_OTHER; any other policy (real-time, idle)
// is left as it is.
class BatchThreads {
 public:
  BatchThreads() = default;
  BatchThreads(const BatchThreads&) = delete;
  BatchThreads& operator=(const BatchThreads&) = delete;
  void begin() {
    if (switched_ || ::sched_getscheduler(0) != SCHED_OTHER) return;
    sched_param p{};
    switched_ = ::sched_setscheduler(0, SCHED_BATCH, &p) == 0;
  }
  ~BatchThreads() {
    if (!switched_) return;
    sched_param p{};
    (void)::sched_setscheduler(0, SCHED_OTHER, &p);
  }

 private:
  bool switched_ = false;
};

// One collector's run on the calling thread: what it read, or the error it threw.
Outcome run_collector_body(const std::function<ApplyFacts(const Context&)>& fn, const Context& ctx) {
  Outcome o;
  began_earlier.reset();
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
  if (began_earlier && *began_earlier < o.begin) o.begin = *began_earlier;
  return o;
}

Started start_collector(const CollectorInfo& c, const Context& ctx) {
  auto promise = std::make_shared<std::promise<Outcome>>();
  Started s{&c, promise->get_future(), Clock::now(), c.deadline.count() > 0 ? c.deadline : ctx.deadline};
  std::thread([promise, fn = c.run, ctx]() { promise->set_value(run_collector_body(fn, ctx)); }).detach();
  return s;
}

// The collectors that answer in milliseconds share a few threads instead of one thread each: on a
// VM where a page fault costs microseconds, starting twenty threads (a stack, its guard page, its
// thread-local block each) took 4 ms of a 23 ms check (docs/performance.md). A collector that hangs
// keeps its thread; when the queue has waited a whole kSpareAfter for a free thread, the caller
// starts one more (add_spare_if_stalled), so a stuck collector delays the others by at most that.
// The workers own the pool's state and the context: the collection may return and abandon them.
class CollectorPool {
 public:
  static constexpr std::chrono::milliseconds kSpareAfter{20};

  explicit CollectorPool(const Context& ctx) : st_(std::make_shared<State>(ctx)) {}

  // Queued now, started by the first free worker; the deadline counts from now.
  Started add(const CollectorInfo& c) {
    auto promise = std::make_shared<std::promise<Outcome>>();
    Started s{&c, promise->get_future(), Clock::now(), c.deadline.count() > 0 ? c.deadline : st_->ctx.deadline};
    std::lock_guard<std::mutex> lock(st_->mu);
    st_->queue.push_back(Job{c.run, std::move(promise)});
    return s;
  }
  // Starts `n` workers (at most one per queued collector).
  void start(std::size_t n) {
    std::size_t queued = 0;
    {
      std::lock_guard<std::mutex> lock(st_->mu);
      queued = st_->queue.size();
      st_->last_take = Clock::now();
      st_->batch = ::sched_getscheduler(0) == SCHED_BATCH;
    }
    for (std::size_t i = 0; i < std::min(n, queued); ++i) spawn();
  }
  // One more worker when collectors are still queued and none was taken for kSpareAfter.
  void add_spare_if_stalled() {
    {
      std::lock_guard<std::mutex> lock(st_->mu);
      if (st_->queue.empty() || Clock::now() - st_->last_take < kSpareAfter) return;
      st_->last_take = Clock::now();
    }
    spawn();
  }
  [[nodiscard]] bool idle() const {
    std::lock_guard<std::mutex> lock(st_->mu);
    return st_->queue.empty();
  }

 private:
  struct Job {
    std::function<ApplyFacts(const Context&)> run;
    std::shared_ptr<std::promise<Outcome>> promise;
  };
  struct State {
    explicit State(const Context& c) : ctx(c) {}
    mutable std::mutex mu;
    std::deque<Job> queue;
    Clock::time_point last_take;  // when a worker last took a collector (or one was started)
    bool batch = false;           // the first workers started as SCHED_BATCH threads: spares become one
    const Context ctx;
  };
  void spawn() {
    try {
      std::thread([st = st_] {
        if (st->batch && ::sched_getscheduler(0) == SCHED_OTHER) {
          sched_param p{};
          (void)::sched_setscheduler(0, SCHED_BATCH, &p);
        }
        for (;;) {
          Job job;
          {
            std::lock_guard<std::mutex> lock(st->mu);
            if (st->queue.empty()) return;
            job = std::move(st->queue.front());
            st->queue.pop_front();
            st->last_take = Clock::now();
          }
          job.promise->set_value(run_collector_body(job.run, st->ctx));
        }
      }).detach();
    } catch (const std::system_error&) {
      // No thread to be had (a thread limit): the workers already running take the queue.
    }
  }
  std::shared_ptr<State> st_;
};

// The CPUs this process may use.
std::size_t usable_cpus() {
  std::size_t cpus = std::thread::hardware_concurrency();
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) cpus = static_cast<std::size_t>(CPU_COUNT(&set));
  return std::max<std::size_t>(cpus, 1);
}

// Waits for the collector (until its deadline) and applies what it read. duration_ms is its own
// run when it answered, the time waited when it did not.
CollectorRun finish_collector(Started& s, Facts& facts, Clock::time_point run_start, CollectorTiming* timing,
                              CollectorPool* pool = nullptr) {
  CollectorRun run{s.info->id, "ok", 0, {}};
  CollectorTiming t{s.info->id, "", ms_between(run_start, s.start), 0, 0};
  const Clock::time_point until = s.start + s.deadline;
  bool ready = false;
  while (!ready) {
    const bool spare_check = pool != nullptr && !pool->idle();
    const Clock::time_point wake = spare_check ? std::min(until, Clock::now() + CollectorPool::kSpareAfter) : until;
    ready = s.result.wait_until(wake) == std::future_status::ready;
    if (ready || Clock::now() >= until) break;
    if (spare_check) pool->add_spare_if_stalled();
  }
  if (!ready) {
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

// Every table is registered during static initialisation and read after it: sorting once at the
// first read (not at each of the hundred registrations) keeps the start of every command short.
bool collectors_sorted = false;
bool rules_sorted = false;
std::mutex sort_mutex;  // a first read from two threads sorts once
}  // namespace

bool register_collector(CollectorInfo c) {
  const auto& areas = facts_areas();
  if (c.writes.empty()) throw std::logic_error("collector " + c.id + " declares no Facts area it writes");
  for (const auto& w : c.writes) {
    if (std::find(areas.begin(), areas.end(), w) == areas.end()) throw std::logic_error("collector " + c.id + ": no Facts area '" + w + "'");
  }
  collector_table().push_back(std::move(c));
  collectors_sorted = false;
  return true;
}

bool register_rule(RuleInfo r) {
  for (const auto& x : rule_table()) {
    if (x.id == r.id && x.source == r.source) throw std::logic_error("duplicate rule " + r.id + " (" + r.source + ")");
  }
  rule_table().push_back(std::move(r));
  rules_sorted = false;
  return true;
}

const std::vector<CollectorInfo>& collectors() {
  std::lock_guard<std::mutex> lock(sort_mutex);
  if (!collectors_sorted) {
    std::stable_sort(collector_table().begin(), collector_table().end(),
                     [](const auto& a, const auto& b) { return a.id < b.id; });
    collectors_sorted = true;
  }
  return collector_table();
}
const std::vector<RuleInfo>& rules() {
  std::lock_guard<std::mutex> lock(sort_mutex);
  if (!rules_sorted) {
    std::sort(rule_table().begin(), rule_table().end(),
              [](const auto& a, const auto& b) { return a.id != b.id ? a.id < b.id : a.source < b.source; });
    rules_sorted = true;
  }
  return rule_table();
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

bool collector_is_slow(const CollectorInfo& c, const Context& ctx) { return c.deadline > ctx.deadline; }

std::vector<std::string> slow_collector_ids(const Context& ctx) {
  std::vector<std::string> ids;
  for (const auto& c : collectors()) {
    if (c.in_check && collector_is_slow(c, ctx)) ids.push_back(c.id);
  }
  return ids;
}

std::set<std::string> slow_collector_areas(const Context& ctx) {
  std::set<std::string> areas;
  for (const auto& c : collectors()) {
    if (c.in_check && collector_is_slow(c, ctx)) areas.insert(c.writes.begin(), c.writes.end());
  }
  return areas;
}

void collect(const Context& ctx, const Selection& sel, Facts& facts, CollectionTimings* timings,
             const WhileSlowRun& while_slow) {
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
  run_collectors(todo, ctx, facts, timings, while_slow);
}

void run_collectors(const std::vector<const CollectorInfo*>& todo, const Context& ctx, Facts& facts,
                    CollectionTimings* timings, const WhileSlowRun& while_slow) {
  // All start at once, the slow ones first so that they overlap all the others. Results are
  // applied in table order within each half (the others, then the slow ones), so Facts do not
  // depend on timing; a slow collector writes facts no other one writes.
  auto slow = [&](const CollectorInfo* c) { return collector_is_slow(*c, ctx); };
  std::vector<std::size_t> order(todo.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(), [&](std::size_t i) { return slow(todo[i]); });
  auto run_start = Clock::now();
  std::vector<std::optional<Started>> running(todo.size());
  CollectorPool pool(ctx);
  bool pooled = false;
  // A slow collector that works (the probe's interpreter, the quick benchmarks when asked for)
  // keeps a CPU to itself: the quick collectors take one fewer.
  const bool beside_slow = std::any_of(todo.begin(), todo.end(),
                                       [&](const CollectorInfo* c) { return slow(c) && !(c->idle && c->idle(ctx)); });
  {
    // The slow collectors start as the process is; the others start as batch threads
    // (SCHED_BATCH, sched(7): the same share of the CPU, but a wakeup does not preempt the task
    // running there). On a machine with few CPUs they then no longer take the CPU from the
    // probe's interpreter at each start and wakeup (docs/performance.md), and a training job
    // beside plumb is not preempted by them either.
    BatchThreads batch;
    for (std::size_t i : order) {
      if (slow(todo[i])) {
        running[i].emplace(start_collector(*todo[i], ctx));
      } else {
        running[i].emplace(pool.add(*todo[i]));
        pooled = true;
      }
    }
    if (pooled) {
      batch.begin();
      pool.start(quick_collector_threads(usable_cpus(), beside_slow));
    }
  }
  // While they run (the probe's interpreter takes tens of milliseconds), this thread builds the
  // tables the rules and the report read next, so that building them is not added after the probe.
  warm_tables();
  std::vector<CollectorTiming> measured(todo.size());
  std::vector<std::optional<CollectorRun>> runs(todo.size());
  for (bool slow_half : {false, true}) {
    if (slow_half && while_slow) while_slow(facts);
    for (std::size_t i = 0; i < todo.size(); ++i) {
      if (slow(todo[i]) == slow_half) runs[i] = finish_collector(*running[i], facts, run_start, &measured[i], &pool);
    }
  }
  for (auto& run : runs) facts.meta.collectors.push_back(std::move(*run));
  if (timings == nullptr) return;
  timings->total_ms = ms_between(run_start, Clock::now());
  for (std::size_t i : order) timings->collectors.push_back(std::move(measured[i]));
}

void collector_began_at(Clock::time_point began) { began_earlier = began; }

void warm_tables() {
  (void)catalog();
  (void)ui_strings();
  (void)threshold_defs();
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

std::size_t quick_collector_threads(std::size_t cpus, bool beside_slow) {
  constexpr std::size_t kMinThreads = 4;
  if (beside_slow) return std::max<std::size_t>(cpus, 2) - 1;
  return std::max(kMinThreads, cpus);
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
// One rule's findings appended to `out`; a rule that throws adds a skip finding naming the error.
void judge_rule(const RuleInfo& r, const Facts& facts, const Thresholds& th, std::vector<Finding>& out) {
  try {
    for (auto& f : r.judge(facts, th)) {
      if (f.id != r.id) throw std::logic_error("rule " + r.id + " returned finding " + f.id);
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

void SplitJudgement::judge_early(const Facts& facts, const Thresholds& th, const Selection& sel,
                                 const std::vector<std::string>& slow) {
  const auto& table = rules();
  done_.assign(table.size(), false);
  early_.clear();
  early_rule_.clear();
  for (std::size_t i = 0; i < table.size(); ++i) {
    const RuleInfo& r = table[i];
    if (!r.judge || !sel.selects(r)) continue;
    bool waits = std::any_of(r.needs.begin(), r.needs.end(),
                             [&](const std::string& n) { return std::find(slow.begin(), slow.end(), n) != slow.end(); });
    if (waits) continue;
    judge_rule(r, facts, th, early_);
    early_rule_.resize(early_.size(), i);
    done_[i] = true;
  }
}

std::vector<Finding> SplitJudgement::judge_rest(const Facts& facts, const Thresholds& th, const Selection& sel) {
  const auto& table = rules();
  done_.resize(table.size(), false);
  std::vector<Finding> out;
  out.reserve(early_.size());
  early_positions_.clear();
  std::size_t next_early = 0;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (done_[i]) {
      for (; next_early < early_.size() && early_rule_[next_early] == i; ++next_early) {
        early_positions_.push_back(out.size());
        out.push_back(std::move(early_[next_early]));
      }
      continue;
    }
    const RuleInfo& r = table[i];
    if (r.judge && sel.selects(r)) judge_rule(r, facts, th, out);
  }
  early_.clear();
  early_rule_.clear();
  done_.clear();
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
