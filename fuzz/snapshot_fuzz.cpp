// Fuzzes a saved report as `plumb report SNAPSHOT`, `plumb diff` and `plumb diagnose --snapshot`
// read it: the facts decoded and compared with an empty snapshot, every rule judging them, and the
// report rendered in every format and both languages (a snapshot is a file anyone can hand plumb,
// whatever it holds).
#include <cstddef>
#include <cstdint>
#include <string>

#include "analyze/snapshot_diff.h"
#include "core/registry.h"
#include "core/thresholds.h"
#include "report/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto facts = plumb::facts_from_snapshot(text, "fuzz");
  if (!facts) return 0;
  plumb::Report r;
  // `plumb diff` of the snapshot against an empty one, both ways round; judged with the rest.
  plumb::SnapshotDiff diff = plumb::diff_facts(*facts, plumb::Facts());
  (void)plumb::diff_facts(plumb::Facts(), *facts);
  r.facts = std::move(*facts);
  r.facts.diff = std::move(diff);
  r.facts.diff.collected = true;
  r.findings = plumb::judge(r.facts, plumb::Thresholds(), plumb::Selection());
  // One language and verbosity per input, chosen by its length: each run stays short.
  plumb::RenderOptions o;
  o.lang = size % 2 == 0 ? plumb::Lang::en : plumb::Lang::zh;
  o.verbosity = static_cast<int>(size / 2 % 3) - 1;
  for (const auto& name : plumb::renderer_names()) (void)plumb::find_renderer(name)->render(r, o);
  return 0;
}
