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
  std::function<ApplyFacts(const Context&)> run;
  std::chrono::milliseconds deadline{0};  // 0: the Context's
  bool in_check = true;  // part of `plumb check` (benchmarks and traces are listed with false)
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

// The tables (core/tables.h), sorted by id: the order of --list and of every run.
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

// Runs the selected in-check collectors (each on a thread of its own, under its deadline) into
// `facts`, recording each one's outcome in facts.meta.collectors (in table order).
void collect(const Context& ctx, const Selection& sel, Facts& facts);
// Runs one collector by id (for subcommands such as `plumb topo`). False when unknown.
bool collect_one(const Context& ctx, const std::string& id, Facts& facts);
// Runs the selected rules. A rule that throws yields a skip finding naming the error.
std::vector<Finding> judge(const Facts& facts, const Thresholds& th, const Selection& sel);

// A skip finding for a rule whose input is missing: reason goes into args["reason"].
Finding skipped(const std::string& id, const std::string& reason, const std::string& subject = "host");

}  // namespace plumb
