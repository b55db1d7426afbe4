// The failure signatures `plumb diagnose` looks for in job logs, and the symptom funnels it walks
// without a log: data, one row each. A row names the patterns (one multi-pattern scan matches them
// all), the L1 symptom and the L2 behaviour it means, the checks that can confirm or refute its
// causes (most likely first), the values to read from a matched line, the words in both languages
// and the public thread where the cause was confirmed.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/i18n.h"

namespace plumb {

// A value read from a matched line: the first capture group of `regex` (ECMAScript). Several
// specs may share a name (old and new message formats); the first that matches wins.
struct LogValueSpec {
  std::string name;
  std::string regex;
};

// What a match says about the failure. `infrastructure`: a symptom whose causes may lie on the node
// (its checks decide); `code`: the log itself shows a bug in the job's code or data; `model`: a
// symptom the model can cause as well as the node (NaN loss); `progress`: no failure, a sign of how
// far the job got (NCCL set-up finished), which the hang guess reads. Progress rows make no finding.
enum class SignatureKind { infrastructure, code, model, progress };

struct LogSignature {
  std::string id;  // "cuda_oom": the finding l1.log.cuda_oom
  Pillar pillar = Pillar::platform;
  Section section = Section::environment;
  // Regular expressions in the subset Hyperscan and POSIX ERE (`grep -E`) read alike: literals,
  // escaped punctuation, [classes], ( | ), ?, +, *. Never \d, \s, lookaround or back-references.
  // Case-sensitive; matched against one line at a time, rank prefixes and colours removed.
  std::vector<std::string> patterns;
  std::vector<LogValueSpec> values;
  Text title;      // the L1 symptom, one line
  Text symptom;    // message "fail": what the log shows ({where}, {count}, value placeholders)
  Text behaviour;  // the L2 behaviour that follows at run time
  // Extra message variants the diagnosis picks from the values (the OOM's "foreign" or
  // "fragmentation"); each a full sentence with placeholders.
  std::map<std::string, Text> variants;
  std::vector<std::string> causes;  // candidate check ids, most likely first
  Text fix;
  std::string verify;  // a command a human can paste
  std::string source;  // public thread or document where the cause was confirmed
  SignatureKind kind = SignatureKind::infrastructure;
};

// A symptom a user can name without a log (`--symptom hang`).
struct CaptureStep {
  Text what;            // what evidence it captures
  std::string command;  // the exact command
};
struct SymptomFunnel {
  std::string name;                 // "hang"
  Pillar pillar = Pillar::platform;
  Text title;                       // "the job hangs"
  Text explanation;                 // the funnel's first question (L1 -> L2)
  std::vector<std::string> checks;  // check ids to run now, in funnel order
  std::vector<CaptureStep> capture; // evidence only the running job can give
  std::string source;
};

const std::vector<LogSignature>& log_signatures();
const LogSignature* find_log_signature(const std::string& id);
const std::vector<SymptomFunnel>& symptom_funnels();
const SymptomFunnel* find_symptom(const std::string& name);

}  // namespace plumb
