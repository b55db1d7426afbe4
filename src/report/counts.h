// Finding counts in words, shared by every renderer: "1 failed, 2 warnings, 1 note" in English
// (singular and plural), "1 项失败，2 项警告" in Chinese.
#pragma once

#include <cstdint>
#include <string>

#include "core/finding.h"
#include "core/i18n.h"
#include "report/report.h"

namespace plumb {

// "1 warning", "2 warnings".
std::string count_of(Status s, std::int64_t n, Lang lang);
// The five counts in report order (failed, warnings, not checked, passed, notes); with
// nonzero_only, only those above zero.
std::string tally_text(const Tally& t, Lang lang, bool nonzero_only = false);

// The report's verdict sentence in the language: defects found, incomplete (a collector timed out,
// so the checks that read it could not look: never "no defect found"), settings that cost
// performance, or no defect found by the checks that ran.
std::string verdict_text(const Report& r, Lang lang);
// The l1.diagnose.verdict finding of a diagnosis; nullptr in other reports.
const Finding* diagnose_verdict_of(const Report& r);

}  // namespace plumb
