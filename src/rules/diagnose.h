// The judgements of `plumb diagnose`: the L1 findings of the signatures a log matched (with the
// conclusions their values allow), the L1 finding of a symptom named without a log, and each
// candidate cause's verdict from the machine's own findings: confirmed, refuted, not checkable.
#pragma once

#include <string>
#include <vector>

#include "analyze/log_scan.h"
#include "core/finding.h"
#include "core/i18n.h"
#include "core/knowledge/log_signatures.h"

namespace plumb {

inline constexpr const char* kCauseId = "l1.diagnose.cause";
inline constexpr const char* kCaptureId = "l1.diagnose.capture";
inline constexpr const char* kNoMatchId = "l1.diagnose.no_match";
inline constexpr const char* kVerdictId = "l1.diagnose.verdict";
inline constexpr const char* kAssumedHangId = "l1.diagnose.assumed_hang";

// "cuda_oom" -> "l1.log.cuda_oom"; "nan-loss" -> "l1.symptom.nan_loss".
std::string log_finding_id(const std::string& signature);
std::string symptom_finding_id(const std::string& symptom);

// One fail finding per matched signature: the lines (file:line, text), the values read and the
// message variant the values call for. Nothing matched: one info finding saying what was read,
// unless the log ends right after NCCL set-up, then a probable hang: an info finding saying so
// and the findings of the symptom `hang`, whose checks then run.
std::vector<Finding> log_findings(const LogScan& scan);
// The L1 finding of a named symptom and one capture finding per evidence step.
std::vector<Finding> symptom_findings(const SymptomFunnel& s);

// The candidate check ids of an L1 finding (its table row), most likely first.
std::vector<std::string> candidate_checks(const Finding& l1);

enum class CauseVerdict { confirmed, refuted, not_checkable };
const char* cause_verdict_name(CauseVerdict v);
// A check's verdict from every finding with that id: fail/warn confirm, pass refutes, skip,
// info or none cannot tell (the skip's reason is kept).
CauseVerdict verdict_of(const std::string& check, const std::vector<Finding>& machine, std::string& reason);

// For each L1 finding and each of its candidate checks, one l1.diagnose.cause finding (status
// fail = confirmed, pass = refuted, skip = not checkable), ordered confirmed, refuted, not checkable.
// `checked` names the machine the checks read, in both languages ("gpu-node-01", or "the snapshot
// of gpu-node-01"): a log can come from another node, so a verdict says where it was reached.
std::vector<Finding> judge_causes(const std::vector<Finding>& l1, const std::vector<Finding>& machine,
                                  const Text& checked = {"this machine", "本机"});

// The diagnosis as one word, from the L1 findings and the causes' verdicts: `infrastructure` (a
// cause confirmed on the machine), `not-infrastructure` (the log shows a code or data bug first),
// `inconclusive` (symptoms, no cause confirmed), `no-failure` (nothing indicates a failure).
// One info finding l1.diagnose.verdict whose arg "verdict" holds the word.
Finding diagnose_verdict(const std::vector<Finding>& l1, const std::vector<Finding>& causes,
                         const Text& checked = {"this machine", "本机"});

}  // namespace plumb
