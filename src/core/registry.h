// Registries of collectors and rules (ninja's tool table): `--list`, `--only`, `--skip` and
// "did you mean" all come from these tables, never from if-chains.
#pragma once

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/context.h"
#include "core/facts.h"
#include "core/finding.h"
#include "core/i18n.h"
#include "core/thresholds.h"

namespace plumb {

// A collector reads its source (possibly slowly, on another thread) and returns a function that
// writes what it read into Facts. Only the returned function touches Facts, on the main thread, so
// a collector that misses its deadline can be abandoned safely.
using ApplyFacts = std::function<void(Facts&)>;

struct CollectorInfo {
  std::string id;     // "collect.cgroup"
  Text title;
  // The Facts areas its results write (top-level members: "host", "gpu"...; facts_areas()). A
  // test holds every collector to it on the fixture machines; `plumb check` prints the areas no
  // slow collector writes while the slow ones run.
  std::vector<std::string> writes;
  std::function<ApplyFacts(const Context&)> run;
  std::chrono::milliseconds deadline{0};  // 0: the Context's
  bool in_check = true;  // part of `plumb check` (benchmarks and traces register with false)
  // When set and true for a context: the collector returns at once there (the quick benchmarks
  // without --bench quick), so a slow one needs no CPU left to it.
  std::function<bool(const Context&)> idle = {};
};

// A rule judges Facts and returns findings whose id is the rule's id (one per subject). One id
// names one behaviour: when two sources observe it (this machine's /proc and a `plumb watch`
// recording), two rules register the same id with different sources, and their findings differ
// only in evidence. The pair (id, source) is unique.
struct RuleInfo {
  std::string id;  // equal to the catalogue id of every finding it returns
  std::vector<std::string> needs;  // collector ids it reads
  // Empty: a subcommand's own analysis produces the id (`plumb memory`, `plumb h5`); listed and
  // selectable, never run by judge().
  std::function<std::vector<Finding>(const Facts&, const Thresholds&)> judge;
  // What it judges: "" for the facts `plumb check` collects, else the artefact ("watch",
  // "trace", "memory", "h5"...).
  std::string source = {};
};

bool register_collector(CollectorInfo c);
bool register_rule(RuleInfo r);
const std::vector<CollectorInfo>& collectors();
const std::vector<RuleInfo>& rules();

// Which ids run: --only and --skip take exact ids or prefixes (`l3.storage` or `l3.storage.`).
// Old ids (catalog.h aliases) select what they name now: `--only l2.watch` still selects the
// watch recording's rules after they were merged into l2.compute.* ids.
struct Selection {
  std::vector<std::string> only;
  std::vector<std::string> skip;
  [[nodiscard]] bool selects(const std::string& id) const;
  [[nodiscard]] bool selects(const RuleInfo& rule) const;
};

// Unknown entries of --only/--skip, each with a "did you mean"; empty when all are known.
std::vector<std::string> unknown_selectors(const Selection& sel);

// A slow collector registers a deadline above the run's (the framework probe's interpreter, the
// quick benchmarks). Every other collector's results are applied before a slow one's, so the
// rules that name no slow collector in their needs can be judged while the slow ones still run.
bool collector_is_slow(const CollectorInfo& c, const Context& ctx);
// The ids of the in-check collectors that are slow for `ctx`.
std::vector<std::string> slow_collector_ids(const Context& ctx);
// The Facts areas those collectors write (their `writes`).
std::set<std::string> slow_collector_areas(const Context& ctx);

// Runs the selected in-check collectors (each under its deadline, in parallel) into `facts`,
// recording each one's outcome in facts.meta.collectors (in table order).
void collect(const Context& ctx, const Selection& sel, Facts& facts);
// Builds the tables built on first read (core/lazy_table.h) that judging and rendering need: the
// catalogue, the interface words, the thresholds. collect() does it while its collectors run.
void warm_tables();

// Called on a collector's thread when its work began before that thread did (the framework
// probe's interpreter is started as the process starts): its timing then runs from `began`.
void collector_began_at(std::chrono::steady_clock::time_point began);
// Runs one collector by id (for subcommands such as `plumb topo`). False when unknown.
bool collect_one(const Context& ctx, const std::string& id, Facts& facts);
// Runs the selected rules. A rule that throws yields a skip finding naming the error.
std::vector<Finding> judge(const Facts& facts, const Thresholds& th, const Selection& sel);

// judge() in two steps: the rules whose needs name no slow collector first (while the slow ones
// run), the rest after. The findings are those judge() returns, in the same order.
class SplitJudgement {
 public:
  // The selected rules whose needs name none of `slow`.
  void judge_early(const Facts& facts, const Thresholds& th, const Selection& sel, const std::vector<std::string>& slow);
  // Every selected rule judge_early did not run; then all findings in rule-table order.
  std::vector<Finding> judge_rest(const Facts& facts, const Thresholds& th, const Selection& sel);
  // What judge_early found, in rule-table order (valid until judge_rest).
  [[nodiscard]] const std::vector<Finding>& early() const { return early_; }
  // After judge_rest: where each of early()'s findings is in its result.
  [[nodiscard]] const std::vector<std::size_t>& early_positions() const { return early_positions_; }

 private:
  std::vector<Finding> early_;
  std::vector<std::size_t> early_positions_;
  std::vector<std::size_t> early_rule_;  // the rule-table index of each early finding
  std::vector<bool> done_;               // per rule-table index
};

// A skip finding for a rule whose input is missing: reason goes into args["reason"].
Finding skipped(const std::string& id, const std::string& reason, const std::string& subject = "host");

}  // namespace plumb
