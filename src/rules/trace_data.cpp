// Trace rules of the data layer: data-loader wait and host-device copies per step.
#include <algorithm>

#include "core/registry.h"
#include "rules/trace_util.h"
#include "core/tables.h"

namespace plumb {
namespace {

using namespace trace_rules;

std::vector<Finding> dataloader_share(const Facts& f, const Thresholds& th) {
  std::vector<Finding> out;
  if (!f.trace.collected) return out;  // only `plumb trace` feeds this rule
  const double warn = th.get("trace.dataloader_share_warn");
  const double fail = th.get("trace.dataloader_share_fail");
  for (const auto& t : f.trace.traces) {
    const auto& s = t.summary;
    const std::string id = "l2.trace.dataloader_share";
    if (!s.dataloader_share) {
      auto it = s.unavailable.find("dataloader_share");
      out.push_back(skipped(id, it != s.unavailable.end() ? it->second : "no complete step", subject(t)));
      continue;
    }
    if (auto why = too_short(t, th); !why.empty()) {
      out.push_back(skipped(id, why, subject(t)));
      continue;
    }
    double p = 100.0 * *s.dataloader_share;
    Finding x;
    x.id = id;
    x.subject = subject(t);
    x.status = p > fail ? Status::fail : p > warn ? Status::warn : Status::pass;
    x.arg("share", pct(*s.dataloader_share)).arg("window", window(t)).arg("file", t.file);
    x.add("data-loader wait", dur(s.dataloader_us) + " of " + dur(s.step_time_total_us) + " (" + pct(*s.dataloader_share) + ")",
          source(t, "enumerate(DataLoader)#...__next__ spans"));
    const TraceStep* worst = nullptr;
    for (const auto& st : t.steps) {
      if (st.complete && st.duration_us > 0 &&
          (worst == nullptr || st.dataloader_us / st.duration_us > worst->dataloader_us / worst->duration_us)) {
        worst = &st;
      }
    }
    if (worst != nullptr && t.summary.complete_steps > 1) {
      x.add("worst step", worst->name + ": " + dur(worst->dataloader_us) + " of " + dur(worst->duration_us) + " (" +
                              pct(worst->dataloader_us / worst->duration_us) + ")",
            t.file);
    }
    x.threshold = "<= " + fmt_num(warn, 0) + " % (warn), <= " + fmt_num(fail, 0) + " % (fail)";
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> copy_share(const Facts& f, const Thresholds& th) {
  std::vector<Finding> out;
  if (!f.trace.collected) return out;
  const double warn = th.get("trace.copy_share_warn");
  const double pageable_warn = th.get("trace.pageable_h2d_warn");
  for (const auto& t : f.trace.traces) {
    const auto& s = t.summary;
    const std::string id = "l2.trace.copy_share";
    if (!s.copy_share) {
      out.push_back(skipped(id, "no complete step", subject(t)));
      continue;
    }
    if (auto why = too_short(t, th); !why.empty()) {
      out.push_back(skipped(id, why, subject(t)));
      continue;
    }
    const bool gpu = s.copy_source == "gpu_memcpy";
    const std::string what = gpu ? "GPU memcpy HtoD + DtoH" : "CPU aten::copy_ / aten::to (no GPU activity in the trace)";
    double p = 100.0 * *s.copy_share;
    Finding x;
    x.id = id;
    x.subject = subject(t);
    x.arg("share", pct(*s.copy_share)).arg("source", what).arg("file", t.file);
    x.add("copy time", dur(s.copy_us) + " of " + dur(s.step_time_total_us) + " (" + pct(*s.copy_share) + ")",
          source(t, what));
    if (gpu) {
      auto bw = [](std::optional<double> g) { return g ? fmt_num(*g, 1) + " GB/s" : std::string("n/a"); };
      x.add("HtoD", human_bytes(s.h2d_bytes) + " in " + dur(s.h2d_us.value_or(0)) + " (" + bw(s.h2d_gbps) + ")",
            source(t, "Memcpy HtoD events"));
      x.add("DtoH", human_bytes(s.d2h_bytes) + " in " + dur(s.d2h_us.value_or(0)) + " (" + bw(s.d2h_gbps) + ")",
            source(t, "Memcpy DtoH events"));
    }
    bool pageable = gpu && pageable_warn > 0 && static_cast<double>(s.pageable_h2d_count) >= pageable_warn;
    if (gpu) {
      x.add("pageable HtoD copies", std::to_string(s.pageable_h2d_count) + " (" + human_bytes(s.pageable_h2d_bytes) + ", " +
                                        dur(s.pageable_h2d_us) + ")",
            source(t, "Memcpy HtoD (Pageable -> Device)"));
    }
    if (p > warn) {
      x.status = Status::warn;
    } else if (pageable) {
      x.status = Status::warn;
      x.variant = "pageable";
      x.arg("count", std::to_string(s.pageable_h2d_count))
          .arg("bytes", human_bytes(s.pageable_h2d_bytes))
          .arg("time", dur(s.pageable_h2d_us));
    } else {
      x.status = Status::pass;
    }
    x.threshold = "<= " + fmt_num(warn, 0) + " % of the step" +
                  (gpu ? ", < " + fmt_num(pageable_warn, 0) + " pageable HtoD copies" : std::string());
    out.push_back(std::move(x));
  }
  return out;
}


}  // namespace
void rules_trace_data_tables(Tables& t) {
  t.add_rule({"l2.trace.dataloader_share", {}, dataloader_share});
  t.add_rule({"l2.trace.copy_share", {}, copy_share});
}

}  // namespace plumb
