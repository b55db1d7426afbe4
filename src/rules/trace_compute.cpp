// Trace rules of the compute and memory layers: step time, GPU idle, synchronisations, launch-bound
// steps and allocator fragmentation.
#include <algorithm>

#include "core/catalog.h"
#include "core/registry.h"
#include "rules/trace_util.h"
#include "core/tables.h"

namespace plumb {
namespace {

using namespace trace_rules;

std::string why_missing(const TraceSummary& s, const std::string& key, const std::string& fallback) {
  auto it = s.unavailable.find(key);
  return it != s.unavailable.end() ? it->second : fallback;
}

std::vector<Finding> step_time(const Facts& f, const Thresholds&) {
  std::vector<Finding> out;
  if (!f.trace.collected) return out;
  for (const auto& t : f.trace.traces) {
    const auto& s = t.summary;
    Finding x;
    x.id = "l2.trace.step_time";
    x.subject = subject(t);
    x.status = Status::info;
    x.arg("file", t.file).arg("window", window(t)).arg("steps", std::to_string(s.complete_steps));
    bool no_steps = std::find(t.notes.begin(), t.notes.end(), "no_profiler_steps") != t.notes.end();
    if (no_steps) {
      x.variant = "no_steps";
      x.arg("duration", dur(s.step_time_total_us));
    }
    x.arg("median", s.step_time_median_us ? dur(*s.step_time_median_us) : "n/a")
        .arg("min", s.step_time_min_us ? dur(*s.step_time_min_us) : "n/a")
        .arg("max", s.step_time_max_us ? dur(*s.step_time_max_us) : "n/a");
    x.add("complete steps", std::to_string(s.complete_steps) + " of " + std::to_string(s.steps), t.file);
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> gpu_idle(const Facts& f, const Thresholds& th) {
  std::vector<Finding> out;
  if (!f.trace.collected) return out;
  const double warn = th.get("trace.gpu_idle_warn");
  const double fail = th.get("trace.gpu_idle_fail");
  for (const auto& t : f.trace.traces) {
    const auto& s = t.summary;
    const std::string id = "l2.trace.gpu_idle";
    if (!s.gpu_idle_share) {
      out.push_back(skipped(id, why_missing(s, "gpu_idle_share", "no complete step"), subject(t)));
      continue;
    }
    if (auto why = too_short(t, th); !why.empty()) {
      out.push_back(skipped(id, why, subject(t)));
      continue;
    }
    double p = 100.0 * *s.gpu_idle_share;
    Finding x;
    x.id = id;
    x.subject = subject(t);
    x.status = p > fail ? Status::fail : p > warn ? Status::warn : Status::pass;
    x.arg("share", pct(*s.gpu_idle_share))
        .arg("window", window(t))
        .arg("file", t.file)
        .arg("busy", dur(s.gpu_busy_us.value_or(0)))
        .arg("total", dur(s.step_time_total_us));
    x.add("GPU idle", dur(s.gpu_idle_us.value_or(0)) + " of " + dur(s.step_time_total_us) + " (" + pct(*s.gpu_idle_share) + ")",
          source(t, "union of kernel/memcpy/memset intervals, all streams"));
    if (s.hta && !s.hta->unavailable.empty()) {
      x.add("HTA temporal breakdown (whole trace)", "n/a (" + s.hta->unavailable + ")", t.file);
    } else if (s.hta) {
      x.add("HTA temporal breakdown (whole trace)",
            "idle " + fmt_num(s.hta->idle_pctg, 2) + " %, compute " + fmt_num(s.hta->compute_pctg, 2) + " %, non-compute " +
                fmt_num(s.hta->non_compute_pctg, 2) + " %",
            t.file);
    }
    x.threshold = "<= " + fmt_num(warn, 0) + " % (warn), <= " + fmt_num(fail, 0) + " % (fail)";
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> sync_stalls(const Facts& f, const Thresholds& th) {
  std::vector<Finding> out;
  if (!f.trace.collected) return out;
  const double warn = th.get("trace.sync_calls_warn");
  for (const auto& t : f.trace.traces) {
    const auto& s = t.summary;
    const std::string id = "l2.trace.sync_stalls";
    if (t.accelerator == "none" || t.accelerator == "mtia") {
      out.push_back(skipped(id, "no CUDA/HIP runtime events in the trace", subject(t)));
      continue;
    }
    if (s.complete_steps == 0) {
      out.push_back(skipped(id, "no complete step", subject(t)));
      continue;
    }
    std::string names;
    for (const auto& c : s.sync_by_name) {
      if (!names.empty()) names += ", ";
      names += c.name + " x" + std::to_string(c.count) + " (" + dur(c.total_us) + ")";
    }
    Finding x;
    x.id = id;
    x.subject = subject(t);
    x.status = warn > 0 && static_cast<double>(s.sync_calls) >= warn ? Status::warn : Status::pass;
    x.arg("count", std::to_string(s.sync_calls))
        .arg("time", dur(s.sync_us))
        .arg("share", pct(s.sync_share.value_or(0)))
        .arg("names", names.empty() ? "none" : names)
        .arg("file", t.file);
    x.add("synchronising calls", std::to_string(s.sync_calls) + " (" + dur(s.sync_us) + ")",
          source(t, "cudaDeviceSynchronize/cudaStreamSynchronize/cudaEventSynchronize/cudaMemcpy runtime events"));
    x.threshold = "< " + fmt_num(warn, 0) + " synchronising calls in the steps";
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> launch_bound(const Facts& f, const Thresholds& th) {
  std::vector<Finding> out;
  if (!f.trace.collected) return out;
  const double warn = th.get("trace.launch_bound_steps_warn");
  for (const auto& t : f.trace.traces) {
    const auto& s = t.summary;
    const std::string id = "l2.trace.launch_bound";
    if (!s.gpu_idle_share) {
      out.push_back(skipped(id, why_missing(s, "gpu_idle_share", "no complete step"), subject(t)));
      continue;
    }
    double steps = static_cast<double>(std::max<std::int64_t>(1, s.complete_steps));
    double bound_share = static_cast<double>(s.launch_bound_steps) / steps;
    Finding x;
    x.id = id;
    x.subject = subject(t);
    x.status = s.launch_bound_steps > 0 && 100.0 * bound_share >= warn ? Status::warn : Status::pass;
    x.arg("bound", std::to_string(s.launch_bound_steps))
        .arg("steps", std::to_string(s.complete_steps))
        .arg("launches", fmt_num(static_cast<double>(s.kernel_launches) / steps, 0))
        .arg("short_share", s.kernel_launches > 0
                                ? pct(static_cast<double>(s.short_kernels) / static_cast<double>(s.kernel_launches))
                                : std::string("n/a"))
        .arg("file", t.file);
    x.add("kernel launches", std::to_string(s.kernel_launches) + ", of which " + std::to_string(s.short_kernels) +
                                 " kernels ran shorter than their launch call",
          source(t, "cudaLaunchKernel runtime events matched to kernels by correlation"));
    x.add("launch-bound steps", std::to_string(s.launch_bound_steps) + " of " + std::to_string(s.complete_steps),
          "plumb: >= 10 kernels, >= 50 % shorter than their launch, GPU idle outside data-loader waits >= 15 % of the step");
    x.threshold = "< " + fmt_num(warn, 0) + " % of the steps launch-bound";
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> memory_fragmentation(const Facts& f, const Thresholds& th) {
  std::vector<Finding> out;
  if (!f.trace.collected) return out;
  const double ratio_warn = th.get("trace.memory_reserved_ratio_warn");
  const double gap_min = th.get("trace.memory_gap_min_mib") * 1024.0 * 1024.0;
  for (const auto& t : f.trace.traces) {
    const std::string id = "l2.vram.fragmentation";
    bool any = false;
    for (const auto& m : t.summary.memory) {
      if (m.device.rfind("cuda:", 0) != 0 || m.peak_allocated_bytes == 0) continue;
      any = true;
      double ratio = static_cast<double>(m.peak_reserved_bytes) / static_cast<double>(m.peak_allocated_bytes);
      Finding x;
      x.id = id;
      x.subject = subject(t) + " " + m.device;
      x.status = ratio > ratio_warn && static_cast<double>(m.gap_bytes) >= gap_min ? Status::warn : Status::pass;
      x.variant = x.status == Status::warn ? "trace_warn" : "trace_pass";
      x.arg("device", m.device)
          .arg("reserved", human_bytes(m.peak_reserved_bytes))
          .arg("allocated", human_bytes(m.peak_allocated_bytes))
          .arg("gap", human_bytes(static_cast<std::uint64_t>(std::max<std::int64_t>(0, m.gap_bytes))))
          .arg("ratio", fmt_num(ratio, 2))
          .arg("file", t.file);
      x.add("peak reserved / allocated", human_bytes(m.peak_reserved_bytes) + " / " + human_bytes(m.peak_allocated_bytes),
            t.file + ": [memory] events (Total Reserved, Total Allocated), " + std::to_string(m.events) + " events");
      x.threshold = "reserved / allocated <= " + fmt_num(ratio_warn, 2) + " or gap < " +
                    human_bytes(static_cast<std::uint64_t>(gap_min));
      out.push_back(std::move(x));
    }
    if (!any) {
      out.push_back(skipped(id,
                            t.summary.memory.empty() ? why_missing(t.summary, "memory", "no [memory] events")
                                                     : "no GPU [memory] events (only host memory was profiled)",
                            subject(t)));
    }
  }
  return out;
}


}  // namespace
void rules_trace_compute_tables(Tables& t) {
  t.add_rule({"l2.trace.step_time", {}, step_time});
  t.add_rule({"l2.trace.gpu_idle", {}, gpu_idle});
  t.add_rule({"l2.trace.sync_stalls", {}, sync_stalls});
  t.add_rule({"l2.trace.launch_bound", {}, launch_bound});
  t.add_rule({"l2.vram.fragmentation", {}, memory_fragmentation, "trace"});
  t.add_alias("l2.trace.memory_fragmentation", "l2.vram.fragmentation", "trace");
}

}  // namespace plumb
