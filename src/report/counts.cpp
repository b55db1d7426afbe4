#include "report/counts.h"
#include "core/tables.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "core/text.h"
#include "rules/diagnose.h"

namespace plumb {

std::string count_of(Status s, std::int64_t n, Lang lang) {
  std::string key = std::string("count.") + status_name(s) + (n == 1 ? "_one" : "");
  return fill(tr(lang, key), {{"n", std::to_string(n)}});
}

std::string tally_text(const Tally& t, Lang lang, bool nonzero_only) {
  std::string out;
  const std::array<std::pair<Status, std::int64_t>, 5> parts{{{Status::fail, t.fail},
                                                              {Status::warn, t.warn},
                                                              {Status::skip, t.skip},
                                                              {Status::pass, t.pass},
                                                              {Status::info, t.info}}};
  for (const auto& [s, n] : parts) {
    if (nonzero_only && n == 0) continue;
    if (!out.empty()) out += tr(lang, "count.sep");
    out += count_of(s, n, lang);
  }
  return out;
}

namespace {

}  // namespace

const Finding* diagnose_verdict_of(const Report& r) {
  for (const auto& f : r.findings) {
    if (f.id == kVerdictId) return &f;
  }
  return nullptr;
}

std::string verdict_text(const Report& r, Lang lang) {
  // A diagnosis says its own verdict: a matched log line is a failure, not a defect of this machine.
  if (const Finding* d = diagnose_verdict_of(r)) return tr(lang, "summary.diagnose_" + d->variant);
  Tally t = tally(r.findings);
  if (t.fail > 0) return tr(lang, "summary.verdict_fail");
  std::vector<std::string> late;
  std::size_t blind = 0;
  for (const auto& f : r.findings) {
    auto it = f.args.find("timed_out");
    if (it == f.args.end()) continue;
    ++blind;
    if (std::find(late.begin(), late.end(), it->second) == late.end()) late.push_back(it->second);
  }
  if (!late.empty()) {
    return fill(tr(lang, "summary.verdict_incomplete"),
                {{"checks", std::to_string(blind)}, {"collectors", join(late, ", ")}});
  }
  return tr(lang, t.warn > 0 ? "summary.verdict_warn" : "summary.verdict_ok");
}

void report_counts_tables(Tables& t) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"count.fail", {"{n} failed", "{n} 项失败"}},
    {"count.fail_one", {"{n} failed", "{n} 项失败"}},
    {"count.warn", {"{n} warnings", "{n} 项警告"}},
    {"count.warn_one", {"{n} warning", "{n} 项警告"}},
    {"count.skip", {"{n} not checked", "{n} 项未检查"}},
    {"count.skip_one", {"{n} not checked", "{n} 项未检查"}},
    {"count.pass", {"{n} passed", "{n} 项通过"}},
    {"count.pass_one", {"{n} passed", "{n} 项通过"}},
    {"count.info", {"{n} notes", "{n} 项提示"}},
    {"count.info_one", {"{n} note", "{n} 项提示"}},
    {"count.sep", {", ", "，"}},
    {"summary.diagnose_infrastructure", {"Verdict: infrastructure: a cause is confirmed on the machine checked; fix it before tuning the model.",
                                         "结论：基础架构问题：已在所检查的机器上确认原因；先修复它，再调模型。"}},
    {"summary.diagnose_not_infrastructure", {"Verdict: not infrastructure: the log shows a bug in the job's code or data.",
                                             "结论：不是基础架构问题：日志显示的是作业代码或数据的缺陷。"}},
    {"summary.diagnose_inconclusive", {"Verdict: inconclusive: no infrastructure cause was confirmed here; see what would decide it.",
                                       "结论：无法判定：此处未确认基础架构原因；请看做出判断所需的证据。"}},
    {"summary.diagnose_inconclusive_model", {"Verdict: inconclusive: no machine cause confirmed; look at the model's own causes first.",
                                             "结论：无法判定：未确认机器原因；先看模型自身的原因。"}},
    {"summary.diagnose_inconclusive_hang", {"Verdict: inconclusive: the log stops without an error; plumb assumed a hang.",
                                            "结论：无法判定：日志在没有错误的情况下停止；plumb 假定作业挂起。"}},
    {"summary.diagnose_no_failure", {"Verdict: no failure: nothing in the log indicates one.", "结论：没有故障：日志中没有故障迹象。"}},
};
});
}

}  // namespace plumb
