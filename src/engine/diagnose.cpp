// The diagnose walk (see engine/diagnose.h): scan, L1 findings, the machine's own checks for the
// candidate causes (collected here or read from a snapshot), verdicts.
#include "engine/output.h"
#include "engine/machine.h"
#include "report/progress_text.h"
#include "core/progress.h"
#include "engine/diagnose.h"

#include <algorithm>
#include <chrono>

#include "analyze/log_scan.h"
#include "core/host_root.h"
#include "core/iso_time.h"
#include "core/knowledge/log_signatures.h"
#include "core/registry.h"
#include "core/suggest.h"
#include "rules/diagnose.h"

namespace plumb {

std::vector<std::string> symptom_names() {
  std::vector<std::string> out;
  for (const auto& s : symptom_funnels()) out.push_back(s.name);
  return out;
}

Result<Report> run_diagnose(const DiagnoseRequest& req) {
  auto start = std::chrono::steady_clock::now();
  std::vector<Finding> l1;
  if (!req.symptom.empty()) {
    const SymptomFunnel* s = find_symptom(req.symptom);
    if (s == nullptr) {
      std::string msg = "--symptom " + req.symptom + ": unknown symptom";
      auto near = closest(req.symptom, symptom_names());
      if (!near.empty()) msg += " (did you mean " + near + "?)";
      return make_error(ErrorKind::invalid, msg);
    }
    for (auto& f : symptom_findings(*s)) l1.push_back(std::move(f));
  }
  if (!req.logs.empty()) {
    auto scan = scan_log_files(req.logs, req.on_log_progress);
    if (!scan) return make_error(scan.error().kind, "cannot read log " + scan.error().message);
    for (auto& f : log_findings(*scan)) l1.push_back(std::move(f));
  }

  // The checks that can confirm or refute a cause: only those run (and only their collectors).
  std::vector<std::string> checks;
  for (const auto& f : l1) {
    for (const auto& c : candidate_checks(f)) {
      if (std::find(checks.begin(), checks.end(), c) == checks.end()) checks.push_back(c);
    }
  }
  Report r;
  if (!req.snapshot.empty()) {
    auto text = read_user_file(req.snapshot);
    if (!text) return make_error(text.error().kind, "cannot read snapshot " + text.error().message);
    auto facts = facts_from_snapshot(*text, req.snapshot);
    if (!facts) return facts.error();
    r.facts = std::move(facts.value());
  } else {
    r.facts.meta.hostname = req.hostname;
    r.facts.meta.root = req.ctx.root.root();
    r.facts.meta.target_pid = req.ctx.pid;
  }
  r.facts.meta.tool_version = plumb_version();
  r.facts.meta.command = "diagnose";
  if (r.facts.meta.started_at.empty()) r.facts.meta.started_at = now_iso8601();
  std::vector<Finding> machine;
  if (!checks.empty()) {
    Selection sel;
    for (const auto& c : checks) {
      bool known = std::any_of(rules().begin(), rules().end(), [&](const RuleInfo& ri) { return ri.id == c; });
      if (known) sel.only.push_back(c);
    }
    if (!sel.only.empty()) {
      if (req.snapshot.empty()) collect(req.ctx, sel, r.facts);
      machine = judge(r.facts, req.thresholds, sel);
    }
  }
  // Where the causes were checked: this node, or the node a snapshot was taken on.
  const std::string host = r.facts.meta.hostname.empty() ? std::string("?") : r.facts.meta.hostname;
  const Text checked = req.snapshot.empty() ? Text{host, host} : Text{"the snapshot of " + host, host + " 的快照"};
  auto causes = judge_causes(l1, machine, checked);
  r.facts.meta.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  Finding verdict = diagnose_verdict(l1, causes, checked);
  r.findings = std::move(l1);
  for (auto& f : causes) r.findings.push_back(std::move(f));
  r.findings.push_back(std::move(verdict));
  for (auto& f : machine) r.findings.push_back(std::move(f));
  return r;
}


// The pipeline of `plumb diagnose`: options -> machine (or a snapshot) -> the walk -> render.
int run_diagnose_command(const DiagnoseOptions& a) {
  if (a.patterns) {  // the table's patterns, one per line: `grep -E -f` reads the same list
    std::string out;
    for (const auto& s : log_signatures()) {
      for (const auto& p : s.patterns) out += p + "\n";
    }
    write_output(out, a.output.out);
    return 0;
  }
  if (a.logs.empty() && a.symptom.empty()) throw UsageError("give a log file (or - for stdin), or --symptom NAME");
  check_output(a.output);  // fails early with the hint; validates --lang
  Config cfg = load_config_or_throw(a.machine.config);
  DiagnoseRequest req;
  req.logs = a.logs;
  req.symptom = a.symptom;
  req.snapshot = a.snapshot;
  req.thresholds = cfg.thresholds;
  if (a.snapshot.empty()) {
    req.ctx = make_context(a.machine);
    req.hostname = host_name(req.ctx.root);
  }
  Result<Report> r = make_error(ErrorKind::internal, "diagnose did not run");
  {
    // Progress on a terminal when reading the logs takes more than two seconds; erased before the report.
    ProgressLine line("plumb diagnose");
    if (line.enabled()) {
      Lang lang = render_options(a.output).lang;
      req.on_log_progress = [&line, lang](const std::string& file, std::uint64_t bytes) {
        line.set(progress_log_read(lang, file, bytes));
      };
    }
    r = run_diagnose(req);
  }
  if (!r) throw UsageError(r.error().message);
  emit(*r, a.output);
  return exit_code_for(r->findings);
}

}  // namespace plumb
