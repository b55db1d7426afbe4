// Rule of `plumb diff A.json B.json`: two snapshots that differ in facts that matter for
// reproducibility and speed fail (the exit code 1 of `plumb diff`), one evidence line per group.
#include "core/catalog.h"
#include "core/registry.h"
#include "core/tables.h"

namespace plumb {
namespace {

constexpr const char* kPlatformDiff = "l3.platform.snapshot_diff";

std::vector<Finding> snapshot_diff(const Facts& facts, const Thresholds&) {
  const SnapshotDiff& d = facts.diff;
  if (!d.collected) return {};  // only `plumb diff` feeds this rule
  Finding f;
  f.id = kPlatformDiff;
  f.subject = "host";
  int same = 0;
  for (const auto& [group, n] : d.identical) same += n;
  std::map<std::string, int> per_group;
  for (const auto& it : d.differences) ++per_group[it.group];
  for (const auto& [group, n] : per_group) {
    f.add(group, std::to_string(n) + (n == 1 ? " difference" : " differences"), d.a.file + " vs " + d.b.file);
  }
  f.arg("n", std::to_string(d.differences.size())).arg("same", std::to_string(same)).arg("a", d.a.file).arg("b", d.b.file);
  f.threshold = "no difference";
  f.status = d.differences.empty() ? Status::pass : Status::fail;
  return {f};
}



}  // namespace
void rules_platform_diff_tables(Tables& t) {
  t.add_rule({kPlatformDiff, {}, snapshot_diff});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {kPlatformDiff, Layer::L3, Pillar::platform, Section::environment,
     {"Snapshot differences", "快照差异"},
     {{"pass", {"{a} and {b} agree on every compared fact ({same} identical).", "{a} 与 {b} 所比较的事实全部一致（{same} 项相同）。"}},
      {"fail",
       {"{a} and {b} differ in {n} facts that matter for reproducibility and speed ({same} identical).",
        "{a} 与 {b} 有 {n} 项影响可复现性与速度的事实不同（{same} 项相同）。"}}},
     {"Align the differing facts (driver, libraries, numerics defaults, variables) between the two machines, or "
      "record why they differ before comparing results or speed.",
      "让两台机器上不同的事实（驱动、库、数值默认设置、环境变量）保持一致，或在比较结果与速度之前记录差异原因。"},
     "plumb diff {a} {b}",
     {"results and speed comparable between the two runs", "两次运行的结果与速度可以相互比较"},
     {}},
};
});
}

}  // namespace plumb
