// Trace rules of the distributed layer: communication/computation overlap and the straggler rank.
#include "core/registry.h"
#include "rules/trace_util.h"
#include "core/tables.h"

namespace plumb {
namespace {

using namespace trace_rules;

std::vector<Finding> comm_overlap(const Facts& f, const Thresholds& th) {
  std::vector<Finding> out;
  if (!f.trace.collected) return out;
  const double warn = th.get("trace.comm_overlap_warn");
  for (const auto& t : f.trace.traces) {
    const auto& s = t.summary;
    const std::string id = "l2.trace.comm_overlap";
    if (!s.comm_overlap) {
      auto it = s.unavailable.find("comm_overlap");
      out.push_back(skipped(id, it != s.unavailable.end() ? it->second : "no complete step", subject(t)));
      continue;
    }
    if (auto why = too_short(t, th); !why.empty()) {
      out.push_back(skipped(id, why, subject(t)));
      continue;
    }
    double comm = s.comm_us.value_or(0);
    double exposed = comm - s.comm_overlap_us.value_or(0);
    Finding x;
    x.id = id;
    x.subject = subject(t);
    x.status = 100.0 * *s.comm_overlap < warn ? Status::warn : Status::pass;
    x.arg("share", pct(*s.comm_overlap)).arg("comm", dur(comm)).arg("exposed", dur(exposed)).arg("file", t.file);
    x.add("overlapped communication", dur(s.comm_overlap_us.value_or(0)) + " of " + dur(comm) + " (" + pct(*s.comm_overlap) + ")",
          source(t, "NCCL kernels intersected with computation kernels"));
    if (s.hta && s.hta->comm_comp_overlap_pctg) {
      x.add("HTA comm/comp overlap (whole trace)", fmt_num(*s.hta->comm_comp_overlap_pctg, 2) + " %", t.file);
    }
    x.threshold = ">= " + fmt_num(warn, 0) + " % overlapped";
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> straggler(const Facts& f, const Thresholds& th) {
  std::vector<Finding> out;
  if (!f.trace.collected) return out;
  const std::string id = "l2.trace.straggler";
  if (!f.trace.cross_rank) {
    out.push_back(skipped(id, f.trace.cross_rank_missing.empty() ? "no cross-rank comparison" : f.trace.cross_rank_missing,
                          "ranks"));
    return out;
  }
  const auto& x0 = *f.trace.cross_rank;
  const double warn = th.get("trace.straggler_warn");
  auto in_job = [&](const TraceRank& t) { return x0.job == 0 || t.job == 0 || t.job == x0.job; };
  std::string files;
  for (const auto& t : f.trace.traces) {
    if (in_job(t)) files += (files.empty() ? "" : " ") + t.file;
  }
  Finding x;
  x.id = id;
  x.subject = x0.slowest;
  x.status = 100.0 * x0.slowest_excess > warn ? Status::warn : Status::pass;
  x.arg("ranks", std::to_string(x0.ranks))
      .arg("median", dur(x0.median_step_us))
      .arg("slowest", x0.slowest)
      .arg("slowest_time", dur(x0.max_step_us))
      .arg("excess", pct(x0.slowest_excess))
      .arg("spread", pct(x0.spread))
      .arg("files", files);
  x.add("median step time per rank", "min " + dur(x0.min_step_us) + ", median " + dur(x0.median_step_us) + ", max " +
                                         dur(x0.max_step_us),
        "ProfilerStep#N spans of " + std::to_string(x0.ranks) + " traces");
  for (const auto& t : f.trace.traces) {
    if (in_job(t) && t.summary.step_time_median_us) x.add(subject(t), dur(*t.summary.step_time_median_us), t.file);
  }
  if (f.trace.jobs > 1) {
    std::string why;
    for (const auto& e : f.trace.jobs_evidence) why += (why.empty() ? "" : "; ") + e;
    x.add("jobs", "ranks of job " + std::to_string(x0.job) + " of " + std::to_string(f.trace.jobs) +
                      " compared; the other traces are from other jobs",
          why);
  }
  x.threshold = "slowest rank <= " + fmt_num(warn, 0) + " % above the median";
  out.push_back(std::move(x));
  return out;
}


}  // namespace
void rules_trace_comm_tables(Tables& t) {
  t.add_rule({"l2.trace.comm_overlap", {}, comm_overlap});
  t.add_rule({"l2.trace.straggler", {}, straggler});
}

}  // namespace plumb
