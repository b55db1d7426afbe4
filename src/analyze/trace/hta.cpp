// HTA's temporal breakdown and communication/computation overlap, with HTA's definitions and
// quirks (facebookresearch/HolisticTraceAnalysis @f4d0062c, hta/analyzers/breakdown_analysis.py and
// communication_analysis.py), so the numbers can be checked.
#include <algorithm>
#include <cmath>

#include "analyze/trace/intervals.h"
#include "analyze/trace/nearly_sorted.h"
#include "analyze/trace/records.h"
#include "core/text.h"

namespace plumb::trace {

namespace {
double round2(double v) { return std::round(v * 100.0) / 100.0; }
}  // namespace

std::optional<TraceHtaBreakdown> hta_breakdown(const TraceRecords& rec) {
  // Iteration filter (trace.py _filter_irrelevant_gpu_kernels): with two or more distinct
  // ProfilerStep names, keep CPU rows that start before the last step starts and GPU rows
  // launched by one of them (matched by correlation): the last step is dropped.
  const bool round_ts = rec.any_fractional_ts;  // round_down_time_stamps: only for float ts columns
  auto rts = [&](double t) { return round_ts ? std::ceil(t) : t; };
  const bool filter = rec.hta_step_names.size() >= 2;
  const double last_start = rts(rec.hta_last_step_ts);
  // The correlation rows of each part by id (sorted copies of any part that is not).
  auto by_corr = [](const CorrRec& a, const CorrRec& b) { return a.id() < b.id(); };
  auto parts = rec.corr_parts();
  std::vector<PodVector<CorrRec>> sorted_copies;
  sorted_copies.reserve(parts.size());
  for (auto& p : parts) {
    if (std::is_sorted(p->begin(), p->end(), by_corr)) continue;
    sorted_copies.push_back(*p);
    sort_nearly_sorted(sorted_copies.back().data(), sorted_copies.back().size(), by_corr);
    p = &sorted_copies.back();
  }
  CorrLookup corr(parts);
  auto launched_before_last = [&](std::int64_t c) {
    return corr.any(c, [&](const CorrRec& r) { return rts(r.ts) < last_start; });
  };

  std::vector<Interval> all, comp, comm;
  // Room up front for every row each list can take (the counts kept while reading), made present in
  // one step each: no copies while they grow, no page fault per page.
  reserve_present(all, rec.gpu_rows());
  reserve_present(comp, static_cast<std::size_t>(rec.n_compute_rows));
  reserve_present(comm, static_cast<std::size_t>(rec.n_comm_rows));
  for (const auto* rows : rec.gpu_parts()) for (const auto& g : *rows) {
    if (!g.on_stream) continue;  // G = rows with stream != -1
    if (filter) {
      bool keep = g.hta_gpu ? (g.correlation == -1 || launched_before_last(g.correlation)) : rts(g.ts) < last_start;
      if (!keep) continue;
    }
    Interval iv{g.ts, g.end};
    if (round_ts) iv = {std::ceil(g.ts), std::floor(g.end)};
    all.push_back(iv);
    if (g.type == KernelType::computation) comp.push_back(iv);
    if (g.type == KernelType::communication) comm.push_back(iv);
  }
  if (all.empty()) return std::nullopt;  // HTA raises IndexError here
  merge_in_place(all);
  merge_in_place(comp);
  merge_in_place(comm);
  TraceHtaBreakdown b;
  b.kernel_time_us = all.back().end - all.front().begin;
  b.idle_time_us = b.kernel_time_us - total_length(all);
  b.compute_time_us = total_length(comp);
  b.non_compute_time_us = b.kernel_time_us - b.compute_time_us - b.idle_time_us;
  if (b.kernel_time_us != 0) {  // HTA divides whatever the sign (rounding can make a sub-µs span negative)
    b.idle_pctg = round2(100.0 * b.idle_time_us / b.kernel_time_us);
    b.compute_pctg = round2(100.0 * b.compute_time_us / b.kernel_time_us);
    b.non_compute_pctg = round2(100.0 * b.non_compute_time_us / b.kernel_time_us);
  }
  double comm_len = total_length(comm);
  if (comm_len > 0) b.comm_comp_overlap_pctg = round2(100.0 * total_length(intersect(comm, comp)) / comm_len);
  // HTA divides by whatever span its rounding leaves; a span under 1 µs or a share outside
  // 0..100 % says nothing about the GPU: report the breakdown as n/a with the reason.
  auto out_of_range = [](double v) { return v < 0 || v > 100; };
  if (b.kernel_time_us < 1) {
    b.unavailable = "the GPU kernels span " + fmt_num(b.kernel_time_us, 2) + " µs after HTA's rounding to whole µs: too short to break down";
  } else if (b.idle_time_us < 0 || b.non_compute_time_us < 0 || out_of_range(b.idle_pctg) || out_of_range(b.compute_pctg) ||
             out_of_range(b.non_compute_pctg)) {
    b.unavailable = "HTA's rounding to whole µs leaves shares outside 0..100 % (idle " + fmt_num(b.idle_pctg, 2) +
                    " %, compute " + fmt_num(b.compute_pctg, 2) + " %): the kernels are too short to break down";
  }
  if (!b.unavailable.empty()) {
    b.idle_pctg = b.compute_pctg = b.non_compute_pctg = 0;
    b.comm_comp_overlap_pctg.reset();
  }
  return b;
}

}  // namespace plumb::trace
