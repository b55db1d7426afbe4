// The per-step breakdown of one rank: where each ProfilerStep's time went, and totals over the
// complete steps (each share = total time / total step time, never a mean of per-step ratios).
#include <algorithm>
#include <atomic>
#include <limits>
#include <cmath>
#include <map>
#include <optional>

#include "analyze/trace/intervals.h"
#include "analyze/trace/nearly_sorted.h"
#include "analyze/trace/records.h"
#include "analyze/trace/search.h"
#include "core/parallel.h"

namespace plumb::trace {

namespace {

// A step is launch-bound when most of its kernels ran shorter than the CPU call that launched
// them and the GPU sat idle for a noticeable part of the step (the CPU could not keep it fed).
constexpr double kLaunchBoundShortShare = 0.5;
constexpr double kLaunchBoundIdleShare = 0.15;
constexpr std::int64_t kLaunchBoundMinKernels = 10;
constexpr std::size_t kTopOps = 10;

std::vector<Interval> merged(const PodVector<Span>& spans) {
  std::vector<Interval> v;
  v.reserve(spans.size());
  for (const auto& s : spans) v.push_back({s.ts, s.end});
  merge_in_place(v);
  return v;
}

double median_value(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string gpu_missing_reason(const TraceRank& r) {
  if (r.accelerator == "mtia") return "the accelerator events are MTIA (mtia_*), which plumb does not analyse as GPU time";
  if (r.accelerator == "cupti_range") {
    return "the trace holds CUPTI profiler ranges (cuda_profiler_range) instead of kernel events";
  }
  return "no GPU kernel, memcpy or memset events in the trace (CPU-only profile: add "
         "torch.profiler.ProfilerActivity.CUDA to activities)";
}

// Records of one thread in nesting order: by start, the longer (enclosing) one first.
bool nests_before(const CpuRec& a, const CpuRec& b) {
  if (a.ts != b.ts) return a.ts < b.ts;
  return a.end > b.end;
}

// One thread's rows of one kind in nesting order: its sorted arrays (the first part's, then those
// of later parts, TraceRecords::cpu_later) merged on the fly, the earlier array first on ties,
// which is the order a stable sort of the arrays laid end to end gives.
class NestingOrder {
 public:
  NestingOrder(const PodVector<CpuRec>& first, const std::vector<PodVector<CpuRec>>& later) {
    runs_.push_back({first.begin(), first.end()});
    for (const auto& v : later) runs_.push_back({v.begin(), v.end()});
    pick();
  }
  // The next record, or null when all are taken.
  [[nodiscard]] const CpuRec* peek() const { return next_; }
  const CpuRec* take() {
    const CpuRec* c = next_;
    auto& run = runs_[at_];
    ++run.first;
    // The other arrays' heads do not move while this one is taken from: one comparison with the
    // first of them per record, as long as this array stays ahead.
    if (run.first != run.second && (limit_ == nullptr || ahead_of_limit(*run.first))) {
      next_ = run.first;
    } else {
      pick();
    }
    return c;
  }

 private:
  // The head of array at_ goes before limit_ (the earliest head of the other arrays).
  [[nodiscard]] bool ahead_of_limit(const CpuRec& head) const {
    return nests_before(head, *limit_) || (!nests_before(*limit_, head) && at_ < limit_at_);
  }
  // The earliest head (the earlier array on ties) as next_, and the earliest of the others as limit_.
  void pick() {
    next_ = limit_ = nullptr;
    for (std::size_t k = 0; k < runs_.size(); ++k) {
      const CpuRec* head = runs_[k].first;
      if (head == runs_[k].second) continue;
      if (next_ == nullptr || nests_before(*head, *next_)) {
        limit_ = next_;
        limit_at_ = at_;
        next_ = head;
        at_ = k;
      } else if (limit_ == nullptr || nests_before(*head, *limit_)) {
        limit_ = head;
        limit_at_ = k;
      }
    }
  }
  std::vector<std::pair<const CpuRec*, const CpuRec*>> runs_;
  const CpuRec* next_ = nullptr;
  std::size_t at_ = 0;
  const CpuRec* limit_ = nullptr;
  std::size_t limit_at_ = 0;
};

// Walks one thread's CPU ops and runtime calls (each in nesting order, merged on the fly, ops
// first on ties) with a stack of the enclosing records; `done(record, direct children time)` is
// called once per record when it closes.
template <class Done>
void walk_nesting(NestingOrder ops, NestingOrder calls, Done done) {
  struct Open {
    const CpuRec* rec;
    double child;
  };
  std::vector<Open> stack;
  while (ops.peek() != nullptr || calls.peek() != nullptr) {
    const CpuRec* c = calls.peek() == nullptr || (ops.peek() != nullptr && !nests_before(*calls.peek(), *ops.peek())) ? ops.take() : calls.take();
    while (!stack.empty() && stack.back().rec->end <= c->ts) {
      done(*stack.back().rec, stack.back().child);
      stack.pop_back();
    }
    if (!stack.empty()) stack.back().child += std::max(0.0, std::min(c->end, stack.back().rec->end) - c->ts);
    stack.push_back({c, 0.0});
  }
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) done(*it->rec, it->child);
}


// A time as a share of the complete steps' total time; none when there is no step time.
std::optional<double> share_of_steps(const TraceSummary& sum, double v) {
  if (sum.step_time_total_us <= 0) return std::nullopt;
  return v / sum.step_time_total_us;
}

// The accelerator the GPU rows came from ("cuda", "rocm"), or why there are none; true when
// there are GPU kernel, memcpy or memset rows to analyse.
bool detect_accelerator(const TraceRecords& rec, TraceRank& out) {
  const bool has_gpu = rec.n_kernel + rec.n_memcpy + rec.n_memset > 0;
  bool amd = rec.hip_runtime;
  for (const auto& d : rec.devices) amd |= d.find("AMD") != std::string::npos;
  out.accelerator = has_gpu ? (amd ? "rocm" : "cuda")
                    : rec.n_mtia > 0 ? "mtia"
                    : rec.n_profiler_range > 0 ? "cupti_range"
                    : "none";
  return has_gpu;
}

// The step windows the breakdown is cut into, in time order.
struct StepWindows {
  std::vector<StepSpan> spans;
  std::vector<bool> complete;  // per span: false for the partial last step
  bool whole = false;          // no ProfilerStep#N: one window over the whole trace

  // Index of the step whose window holds t, or -1. `hint` is where the search starts and is set to
  // where it ended: lookups in time order then cost a step or two each (search.h).
  [[nodiscard]] long step_of(double t, std::size_t& hint) const {
    auto it = partition_point_from(spans.begin(), spans.end(), spans.begin() + static_cast<long>(std::min(hint, spans.size())),
                                   [t](const StepSpan& s) { return !(t < s.ts); });
    hint = static_cast<std::size_t>(it - spans.begin());
    if (it == spans.begin()) return -1;
    --it;
    return t < it->end || (whole && t <= it->end) ? static_cast<long>(it - spans.begin()) : -1;
  }
  // True when t lies in a complete step.
  [[nodiscard]] bool in_complete_step(double t, std::size_t& hint) const {
    long i = step_of(t, hint);
    return i >= 0 && complete[static_cast<std::size_t>(i)];
  }
};

// Steps: ProfilerStep#N spans (deduplicated, the short last one marked partial), or the whole
// trace as one window; then the --steps filter.
Result<StepWindows> select_steps(const TraceRecords& rec, const StepFilter& filter, TraceRank& out) {
  StepWindows w;
  std::vector<StepSpan>& steps = w.spans;
  steps = rec.steps;
  std::sort(steps.begin(), steps.end(), [](const StepSpan& a, const StepSpan& b) { return a.ts < b.ts; });
  steps.erase(std::unique(steps.begin(), steps.end(),
                          [](const StepSpan& a, const StepSpan& b) { return a.ts == b.ts && a.name == b.name; }),
              steps.end());
  w.whole = steps.empty();
  w.complete.assign(steps.size(), true);
  if (w.whole) {
    if (filter.active()) {
      return make_error(ErrorKind::invalid, out.file + ": --steps given but the trace has no ProfilerStep#N spans");
    }
    out.notes.push_back("no_profiler_steps");
    steps.push_back({rec.first_ts, rec.last_end, -1, "whole trace"});
    w.complete.push_back(true);
  } else if (steps.size() >= 2) {
    // The span opened by the last profiler.step() is closed when profiling stops: usually short.
    std::vector<double> others;
    for (std::size_t i = 0; i + 1 < steps.size(); ++i) others.push_back(steps[i].end - steps[i].ts);
    if (steps.back().end - steps.back().ts < 0.5 * median_value(others)) {
      w.complete.back() = false;
      out.notes.push_back("last_step_partial");
    }
  }
  if (filter.active()) {
    std::vector<StepSpan> kept;
    std::vector<bool> kept_complete;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      if (steps[i].number >= filter.first && steps[i].number <= filter.last) {
        kept.push_back(steps[i]);
        kept_complete.push_back(w.complete[i]);
      }
    }
    if (kept.empty()) {
      return make_error(ErrorKind::invalid, out.file + ": --steps " + std::to_string(filter.first) + "-" +
                                                std::to_string(filter.last) + ": no ProfilerStep#N in that range (the trace has " +
                                                steps.front().name + " .. " + steps.back().name + ")");
    }
    steps = std::move(kept);
    w.complete = std::move(kept_complete);
    out.notes.push_back("steps_filtered");
  }
  return w;
}

// Unions of each kind of activity over the whole trace.
struct ActivityUnions {
  std::vector<Interval> dataloader, optimizer, cpu_copy;
  std::vector<Interval> gpu_busy, h2d, d2h, copy, pageable_h2d, compute, comm;
  std::vector<Interval> comm_overlap;        // compute ∩ comm
  std::vector<Interval> busy_in_dataloader;  // gpu_busy ∩ dataloader
};

ActivityUnions build_unions(const TraceRecords& rec) {
  ActivityUnions u;
  u.dataloader = merged(rec.dataloader);
  u.optimizer = merged(rec.optimizer);
  u.cpu_copy = merged(rec.cpu_copy);
  // The GPU lists in one pass over the rows (each in row order, as a pass per list would give).
  reserve_present(u.gpu_busy, rec.gpu_rows());
  reserve_present(u.compute, static_cast<std::size_t>(rec.n_compute_rows));
  reserve_present(u.comm, static_cast<std::size_t>(rec.n_comm_rows));
  for (const auto* rows : rec.gpu_parts()) for (const auto& g : *rows) {
    const Interval iv{g.ts, g.end};
    if (g.cat != Cat::cuda_sync) u.gpu_busy.push_back(iv);
    if (g.cat == Cat::memcpy) {
      if (g.dir == CopyDir::htod) {
        u.h2d.push_back(iv);
        u.copy.push_back(iv);
        if (g.pageable) u.pageable_h2d.push_back(iv);
      } else if (g.dir == CopyDir::dtoh) {
        u.d2h.push_back(iv);
        u.copy.push_back(iv);
      }
    } else if (g.cat == Cat::kernel) {
      if (g.type == KernelType::computation) u.compute.push_back(iv);
      if (g.type == KernelType::communication) u.comm.push_back(iv);
    }
  }
  for (auto* v : {&u.gpu_busy, &u.h2d, &u.d2h, &u.copy, &u.pageable_h2d, &u.compute, &u.comm}) merge_in_place(*v);
  u.comm_overlap = intersect(u.compute, u.comm);
  u.busy_in_dataloader = intersect(u.gpu_busy, u.dataloader);
  return u;
}

// One TraceStep per window: the time of each activity inside it.
void fill_step_times(const TraceRecords& rec, const StepWindows& w, const ActivityUnions& u, bool has_gpu, TraceRank& out) {
  out.steps.clear();
  for (std::size_t i = 0; i < w.spans.size(); ++i) {
    const auto& s = w.spans[i];
    TraceStep st;
    st.name = s.name;
    if (s.number >= 0) st.number = s.number;
    st.start_us = s.ts - rec.first_ts;
    st.duration_us = s.end - s.ts;
    st.complete = w.complete[i];
    st.dataloader_us = clipped_length(u.dataloader, s.ts, s.end);
    st.optimizer_us = clipped_length(u.optimizer, s.ts, s.end);
    st.cpu_copy_us = clipped_length(u.cpu_copy, s.ts, s.end);
    if (has_gpu) {
      st.h2d_us = clipped_length(u.h2d, s.ts, s.end);
      st.d2h_us = clipped_length(u.d2h, s.ts, s.end);
      st.pageable_h2d_us = clipped_length(u.pageable_h2d, s.ts, s.end);
      st.gpu_busy_us = clipped_length(u.gpu_busy, s.ts, s.end);
      st.gpu_idle_us = std::max(0.0, st.duration_us - *st.gpu_busy_us);
      st.compute_us = clipped_length(u.compute, s.ts, s.end);
      st.comm_us = clipped_length(u.comm, s.ts, s.end);
      st.comm_overlap_us = clipped_length(u.comm_overlap, s.ts, s.end);
    }
    out.steps.push_back(std::move(st));
  }
}

// Synchronising calls counted in the step their CPU call started in, and the complete steps'
// calls by name (most time first).
void count_syncs(const TraceRecords& rec, const StepWindows& w, TraceRank& out) {
  std::map<std::uint32_t, TraceSyncCall> sync_by_name;
  std::size_t hint = 0;
  for (const auto& sc : rec.syncs) {
    long i = w.step_of(sc.ts, hint);
    if (i < 0) continue;
    auto& st = out.steps[static_cast<std::size_t>(i)];
    ++st.sync_calls;
    st.sync_us += sc.end - sc.ts;
    if (w.complete[static_cast<std::size_t>(i)]) {
      auto& agg = sync_by_name[sc.name];
      agg.name = rec.names[sc.name];
      ++agg.count;
      agg.total_us += sc.end - sc.ts;
    }
  }
  TraceSummary& sum = out.summary;
  for (const auto& [id, s] : sync_by_name) sum.sync_by_name.push_back(s);
  std::sort(sum.sync_by_name.begin(), sum.sync_by_name.end(),
            [](const TraceSyncCall& a, const TraceSyncCall& b) { return a.total_us > b.total_us; });
}

// Kernel launches per step, and the kernels matched to their launch call with the short ones
// among them (ran shorter than the call that launched them); returns the matched count per step
// (the correlation rows sorted by correlation first: analyze_records does that).
std::vector<std::int64_t> count_launches(const TraceRecords& rec, const StepWindows& w, TraceRank& out) {
  std::size_t hint = 0;
  auto count = [&](double ts) {
    long i = w.step_of(ts, hint);
    if (i >= 0) ++out.steps[static_cast<std::size_t>(i)].kernel_launches;
  };
  for (const auto* part : rec.corr_parts()) for (const auto& c : *part) {
    if (c.launch) count(c.ts);
  }
  for (double ts : rec.uncorrelated_launches) count(ts);
  std::vector<std::int64_t> matched(out.steps.size(), 0);
  CorrLookup corr(rec.corr_parts());
  hint = 0;
  for (const auto* rows : rec.gpu_parts()) for (const auto& g : *rows) {
    if (g.cat != Cat::kernel || g.correlation < 0) continue;
    const CorrRec* it = corr.first(g.correlation);
    if (it == nullptr || !it->launch) continue;
    long i = w.step_of(it->ts, hint);
    if (i < 0) continue;
    ++matched[static_cast<std::size_t>(i)];
    if (g.end - g.ts < it->dur) ++out.steps[static_cast<std::size_t>(i)].short_kernels;
  }
  return matched;
}

// Each step's launch-bound verdict from its matched and short kernels and its GPU idle time.
void mark_launch_bound(const StepWindows& w, const ActivityUnions& u, const std::vector<std::int64_t>& matched, bool has_gpu,
                       TraceRank& out) {
  for (std::size_t i = 0; i < out.steps.size(); ++i) {
    auto& st = out.steps[i];
    // GPU idle while the loop waited for data is the data loader's, not the launcher's.
    double idle_in_dl = st.dataloader_us - clipped_length(u.busy_in_dataloader, w.spans[i].ts, w.spans[i].end);
    double idle_launching = st.gpu_idle_us.value_or(0) - std::max(0.0, idle_in_dl);
    st.launch_bound = has_gpu && matched[i] >= kLaunchBoundMinKernels && st.duration_us > 0 &&
                      static_cast<double>(st.short_kernels) >= kLaunchBoundShortShare * static_cast<double>(matched[i]) &&
                      idle_launching >= kLaunchBoundIdleShare * st.duration_us;
  }
}

// GPU times summed over the complete steps.
struct GpuTotals {
  double h2d = 0, d2h = 0, busy = 0, idle = 0, comp = 0, comm = 0, ovl = 0, copy = 0;
};

// Totals over the complete steps: the summary's step times, CPU-side times and shares; returns
// the GPU times for summarize_gpu.
GpuTotals sum_complete_steps(const TraceRecords& rec, const StepWindows& w, const ActivityUnions& u, bool has_gpu, TraceRank& out) {
  TraceSummary& sum = out.summary;
  std::vector<double> durations;
  GpuTotals g;
  for (std::size_t i = 0; i < out.steps.size(); ++i) {
    const auto& st = out.steps[i];
    if (!st.complete) continue;
    durations.push_back(st.duration_us);
    sum.step_time_total_us += st.duration_us;
    sum.dataloader_us += st.dataloader_us;
    sum.optimizer_us += st.optimizer_us;
    sum.cpu_copy_us += st.cpu_copy_us;
    sum.sync_calls += st.sync_calls;
    sum.sync_us += st.sync_us;
    sum.kernel_launches += st.kernel_launches;
    sum.short_kernels += st.short_kernels;
    sum.launch_bound_steps += st.launch_bound ? 1 : 0;
    if (has_gpu) {
      g.h2d += *st.h2d_us;
      g.d2h += *st.d2h_us;
      g.busy += *st.gpu_busy_us;
      g.idle += *st.gpu_idle_us;
      g.comp += *st.compute_us;
      g.comm += *st.comm_us;
      g.ovl += *st.comm_overlap_us;
      g.copy += clipped_length(u.copy, w.spans[i].ts, w.spans[i].end);
    }
  }
  sum.steps = static_cast<std::int64_t>(out.steps.size());
  sum.complete_steps = static_cast<std::int64_t>(durations.size());
  if (!durations.empty()) {
    sum.step_time_median_us = median_value(durations);
    sum.step_time_min_us = *std::min_element(durations.begin(), durations.end());
    sum.step_time_max_us = *std::max_element(durations.begin(), durations.end());
  } else {
    sum.unavailable["step_time"] = "no complete step";
  }
  if (rec.dataloader.empty()) {
    sum.unavailable["dataloader_share"] =
        "no enumerate(DataLoader)#...__next__ spans in the trace: the loop does not iterate a torch DataLoader, "
        "or its batches were fetched outside the profiled steps";
  } else {
    sum.dataloader_share = share_of_steps(sum, sum.dataloader_us);
  }
  if (rec.optimizer.empty()) {
    sum.unavailable["optimizer_share"] = "no Optimizer.step#... spans in the trace";
  } else {
    sum.optimizer_share = share_of_steps(sum, sum.optimizer_us);
  }
  sum.cpu_copy_share = share_of_steps(sum, sum.cpu_copy_us);
  sum.sync_share = share_of_steps(sum, sum.sync_us);
  return g;
}

// The GPU part of the summary: busy/idle, compute/comm overlap and host-device copies (bytes and
// bandwidth of the complete steps' memcpy rows); without GPU rows, the CPU copy time and why the
// GPU figures are missing.
void summarize_gpu(const TraceRecords& rec, const StepWindows& w, const GpuTotals& g, bool has_gpu, TraceRank& out) {
  TraceSummary& sum = out.summary;
  if (!has_gpu) {
    sum.copy_source = "cpu_aten_copy";
    sum.copy_us = sum.cpu_copy_us;
    sum.copy_share = sum.cpu_copy_share;
    std::string why = gpu_missing_reason(out);
    for (const char* k : {"gpu_busy_us", "gpu_idle_share", "h2d_us", "comm_overlap"}) sum.unavailable[k] = why;
    return;
  }
  sum.copy_source = "gpu_memcpy";
  sum.copy_us = g.copy;
  sum.copy_share = share_of_steps(sum, g.copy);
  sum.h2d_us = g.h2d;
  sum.d2h_us = g.d2h;
  sum.gpu_busy_us = g.busy;
  sum.gpu_idle_us = g.idle;
  sum.gpu_idle_share = share_of_steps(sum, g.idle);
  sum.compute_us = g.comp;
  sum.comm_us = g.comm;
  sum.comm_overlap_us = g.ovl;
  if (g.comm > 0) {
    sum.comm_overlap = g.ovl / g.comm;
  } else {
    sum.unavailable["comm_overlap"] = "no communication (NCCL) kernels in the complete steps";
  }
  double h2d_dur = 0, d2h_dur = 0;
  std::size_t hint = 0;
  for (const auto* rows : rec.gpu_parts()) for (const auto& r : *rows) {
    if (r.cat != Cat::memcpy) continue;
    if (!w.in_complete_step(r.ts, hint)) continue;
    if (r.dir == CopyDir::htod) {
      sum.h2d_bytes += static_cast<std::uint64_t>(r.bytes);
      h2d_dur += r.end - r.ts;
      if (r.pageable) {
        ++sum.pageable_h2d_count;
        sum.pageable_h2d_us += r.end - r.ts;
        sum.pageable_h2d_bytes += static_cast<std::uint64_t>(r.bytes);
      }
    } else if (r.dir == CopyDir::dtoh) {
      sum.d2h_bytes += static_cast<std::uint64_t>(r.bytes);
      d2h_dur += r.end - r.ts;
    }
  }
  // bytes / µs / 1e3 = GB/s (1 GB = 1e9 bytes)
  if (h2d_dur > 0 && sum.h2d_bytes > 0) sum.h2d_gbps = static_cast<double>(sum.h2d_bytes) / h2d_dur / 1e3;
  if (d2h_dur > 0 && sum.d2h_bytes > 0) sum.d2h_gbps = static_cast<double>(sum.d2h_bytes) / d2h_dur / 1e3;
}

// Memory peaks per device from the [memory] events.
void summarize_memory(const TraceRecords& rec, TraceSummary& sum) {
  for (const auto& [dev, m] : rec.memory) {
    TraceMemory tm;
    tm.device = dev.first == 1   ? "cuda:" + std::to_string(dev.second)
                : dev.first == 0 ? std::string("cpu")
                                 : "device_type_" + std::to_string(dev.first) + ":" + std::to_string(dev.second);
    tm.events = m.events;
    tm.peak_allocated_bytes = m.peak_allocated > 0 ? static_cast<std::uint64_t>(m.peak_allocated) : 0;
    tm.peak_reserved_bytes = m.peak_reserved > 0 ? static_cast<std::uint64_t>(m.peak_reserved) : 0;
    tm.gap_bytes = static_cast<std::int64_t>(tm.peak_reserved_bytes) - static_cast<std::int64_t>(tm.peak_allocated_bytes);
    sum.memory.push_back(std::move(tm));
  }
  if (rec.memory.empty()) sum.unavailable["memory"] = "no [memory] events (profile with profile_memory=True)";
}

// Kineto writes each thread's ops almost in time order: sorting is near linear then.
void sort_thread(TraceRecords& rec, std::size_t t) {
  auto order = [](const CpuRec& a, const CpuRec& b) { return nests_before(a, b); };
  sort_nearly_sorted(rec.cpu[t].data(), rec.cpu[t].size(), order);
  sort_nearly_sorted(rec.runtime[t].data(), rec.runtime[t].size(), order);
  for (auto* later : {&rec.cpu_later[t], &rec.runtime_later[t]}) {
    for (auto& v : *later) sort_nearly_sorted(v.data(), v.size(), order);
  }
}

void sort_correlations(TraceRecords& rec) {
  auto by_id = [](const CorrRec& a, const CorrRec& b) { return a.id() < b.id(); };
  sort_nearly_sorted(rec.corr.data(), rec.corr.size(), by_id);
  for (auto& v : rec.corr_later) sort_nearly_sorted(v.data(), v.size(), by_id);
}

// Top operators by self time, inside the complete steps (sorts each thread's records in place).
// Each CPU thread's ops are summed apart, then the threads' sums are added in thread order: the
// result does not depend on which worker took which thread, so the threads can be shared by the
// analysis' two workers (help()) and still give the one-worker figures to the last bit.
class TopOps {
 public:
  TopOps(TraceRecords& rec, const StepWindows& w) : rec_(rec), w_(w), sums_(rec.cpu.size()) {
    for (std::size_t t = 0; t < rec.cpu.size(); ++t) {
      std::size_t rows = rec.cpu[t].size() + rec.runtime[t].size();
      for (const auto& v : rec.cpu_later[t]) rows += v.size();
      for (const auto& v : rec.runtime_later[t]) rows += v.size();
      if (rows > 0) order_.emplace_back(rows, t);
    }
    // The largest threads first: the two workers then end close together.
    std::stable_sort(order_.begin(), order_.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  }
  // Takes threads until none is left; any number of workers may call it at once.
  void help() {
    std::vector<Acc> acc;  // by interned name id, for the thread at hand
    std::vector<std::uint32_t> seen;
    for (std::size_t k = next_.fetch_add(1); k < order_.size(); k = next_.fetch_add(1)) {
      const std::size_t t = order_[k].second;
      if (acc.empty()) acc.resize(rec_.names.size());
      sort_thread(rec_, t);
      std::size_t hint = 0;
      walk_nesting({rec_.cpu[t], rec_.cpu_later[t]}, {rec_.runtime[t], rec_.runtime_later[t]}, [&](const CpuRec& c, double child) {
        if (!c.op) return;
        if (!w_.in_complete_step(c.ts, hint)) return;
        auto& op = acc[c.name];
        if (op.calls == 0) seen.push_back(c.name);
        ++op.calls;
        op.total_us += c.end - c.ts;
        op.self_us += std::max(0.0, c.end - c.ts - child);
      });
      auto& out = sums_[t];
      out.reserve(seen.size());
      for (std::uint32_t id : seen) {
        out.emplace_back(id, acc[id]);
        acc[id] = Acc{};
      }
      seen.clear();
    }
  }
  // Once every worker is done: the ten operators with the most self time.
  [[nodiscard]] std::vector<TraceOp> result() const {
    std::vector<Acc> ops(rec_.names.size());
    for (const auto& thread : sums_) {
      for (const auto& [id, a] : thread) {
        ops[id].calls += a.calls;
        ops[id].total_us += a.total_us;
        ops[id].self_us += a.self_us;
      }
    }
    std::vector<TraceOp> top;
    for (std::size_t id = 0; id < ops.size(); ++id) {
      if (ops[id].calls == 0) continue;
      top.push_back({rec_.names[id], ops[id].calls, ops[id].self_us, ops[id].total_us});
    }
    std::sort(top.begin(), top.end(), [](const TraceOp& a, const TraceOp& b) {
      return a.self_us != b.self_us ? a.self_us > b.self_us : a.name < b.name;
    });
    if (top.size() > kTopOps) top.resize(kTopOps);
    return top;
  }

 private:
  struct Acc {
    std::int64_t calls = 0;
    double total_us = 0, self_us = 0;
  };
  TraceRecords& rec_;
  const StepWindows& w_;
  std::vector<std::pair<std::size_t, std::size_t>> order_;              // (rows, thread)
  std::atomic<std::size_t> next_{0};                                    // the next entry of order_ to take
  std::vector<std::vector<std::pair<std::uint32_t, Acc>>> sums_;        // by thread: (name id, sums)
};

}  // namespace

CorrLookup::CorrLookup(const std::vector<const PodVector<CorrRec>*>& parts) {
  for (const auto* p : parts) {
    if (!p->empty()) runs_.push_back({p->begin(), p->end(), p->begin()});
  }
  order_.resize(runs_.size());
  for (std::size_t k = 0; k < runs_.size(); ++k) order_[k] = static_cast<std::uint32_t>(k);
  std::stable_sort(order_.begin(), order_.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return runs_[a].begin->id() < runs_[b].begin->id(); });
  std::int64_t reach = std::numeric_limits<std::int64_t>::min();
  for (std::uint32_t k : order_) {
    lows_.push_back(runs_[k].begin->id());
    reach = std::max(reach, (runs_[k].end - 1)->id());
    reach_.push_back(reach);
  }
}

void CorrLookup::spanning(std::int64_t id) {
  spans_.clear();
  // Entries before p start at or below id; going back, none before i reaches id once reach_[i] < id.
  auto p = static_cast<std::size_t>(std::upper_bound(lows_.begin(), lows_.end(), id) - lows_.begin());
  while (p > 0 && reach_[p - 1] >= id) {
    --p;
    if ((runs_[order_[p]].end - 1)->id() >= id) spans_.push_back(order_[p]);
  }
  if (spans_.size() > 1) std::sort(spans_.begin(), spans_.end());
}

const CorrRec* CorrLookup::find(Run& r, std::int64_t id) {
  if (id < r.begin->id() || id > (r.end - 1)->id()) return r.end;
  r.at = partition_point_from(r.begin, r.end, r.at, [id](const CorrRec& c) { return c.id() < id; });
  return r.at;
}

const CorrRec* CorrLookup::first(std::int64_t id) {
  spanning(id);
  for (std::uint32_t k : spans_) {
    Run& r = runs_[k];
    const CorrRec* it = find(r, id);
    if (it != r.end && it->id() == id) return it;
  }
  return nullptr;
}

void sort_records(TraceRecords& rec) {
  sort_correlations(rec);
  for (std::size_t t = 0; t < rec.cpu.size(); ++t) sort_thread(rec, t);
}

Result<bool> analyze_records(TraceRecords& rec, const StepFilter& filter, TraceRank& out, int threads) {
  const bool has_gpu = detect_accelerator(rec, out);
  if (!rec.any_x) return make_error(ErrorKind::invalid, out.file + ": no complete (ph \"X\") events: nothing to analyse");
  if (!has_gpu) out.notes.push_back(out.accelerator == "none" ? "no_gpu_events" : out.accelerator + "_not_analysed");

  auto windows = select_steps(rec, filter, out);
  if (!windows) return windows.error();
  const StepWindows& w = *windows;
  // From here on the GPU and correlation rows are only read. HTA's breakdown (GPU and correlation
  // rows) and the top operators (the only user of the CPU and runtime rows, which it sorts) can
  // then run on a second thread beside the rest, each into its own result; this thread takes its
  // share of the top operators' CPU threads when done with the rest.
  sort_correlations(rec);
  TopOps top(rec, w);
  auto side_work = [&rec, &top] {
    TraceSummary side;
    side.hta = hta_breakdown(rec);
    top.help();
    return side;
  };
  TraceSummary done;
  TaskGroup side;
  if (threads > 1) side.run([&done, &side_work] { done = side_work(); });
  const ActivityUnions u = build_unions(rec);
  fill_step_times(rec, w, u, has_gpu, out);
  count_syncs(rec, w, out);
  const auto matched = count_launches(rec, w, out);
  mark_launch_bound(w, u, matched, has_gpu, out);
  const GpuTotals g = sum_complete_steps(rec, w, u, has_gpu, out);
  summarize_gpu(rec, w, g, has_gpu, out);
  summarize_memory(rec, out.summary);
  if (threads > 1) {
    top.help();  // the threads the second worker has not taken yet
    side.wait();
  } else {
    done = side_work();
  }
  out.summary.hta = std::move(done.hta);
  out.summary.top_ops = top.result();
  return true;
}

}  // namespace plumb::trace
