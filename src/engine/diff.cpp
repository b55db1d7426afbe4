// `plumb diff A.json B.json`: the differences between two snapshots that matter for
// reproducibility and speed, grouped with why each group matters (facts.diff, judged by
// l3.platform.snapshot_diff, printed by the shared renderers). Exit 0: none, 1: some, 2: bad input.
#include <memory>

#include "analyze/snapshot_diff.h"
#include "engine/machine.h"
#include "engine/diff.h"
#include "engine/output.h"
#include "core/host_root.h"
#include "core/registry.h"

namespace plumb {

namespace {

Facts load_snapshot(const std::string& file) {
  auto text = read_user_file(file, 256u << 20);
  if (!text) throw UsageError("cannot read snapshot " + text.error().message);
  auto facts = facts_from_snapshot(*text, file);
  if (!facts) throw UsageError(facts.error().message);
  return std::move(facts.value());
}

DiffSide side(const std::string& file, const Facts& f) {
  return {file, f.meta.hostname, f.meta.started_at, f.meta.tool_version};
}

}  // namespace

int run_diff(const DiffOptions& args) {
  check_output(args.output);  // fails early with the hint; validates --lang
  Facts a = load_snapshot(args.a);
  Facts b = load_snapshot(args.b);
  Report r = new_report("diff", host_name(HostRoot("/")));
  r.facts.diff = diff_facts(a, b);
  r.facts.diff.collected = true;
  r.facts.diff.a = side(args.a, a);
  r.facts.diff.b = side(args.b, b);
  Selection sel;
  sel.only = {"l3.platform.snapshot_diff"};
  r.findings = judge(r.facts, Thresholds{}, sel);
  emit(r, args.output);
  return exit_code_for(r.findings);
}


}  // namespace plumb
