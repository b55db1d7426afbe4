// Facts of PyTorch profiler traces: per rank, per step, where the time went.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

// One ProfilerStep#N span (or the whole trace when the trace has none). Times in µs; a GPU field
// is null when the trace holds no GPU activity (unknown, never 0).
struct TraceStep {
  std::string name;                    // "ProfilerStep#5" | "whole trace"
  std::optional<std::int64_t> number;  // N of ProfilerStep#N
  double start_us = 0;                 // from the first event of the trace
  double duration_us = 0;
  bool complete = true;                // false: cut short by the end of the profiling window
  double dataloader_us = 0;            // union of enumerate(DataLoader)#...__next__ spans in the step
  double optimizer_us = 0;             // union of Optimizer.step#/Optimizer.zero_grad# spans
  double cpu_copy_us = 0;              // union of CPU-side aten::copy_/aten::to/aten::_to_copy spans
  std::optional<double> h2d_us;        // union of GPU HtoD memcpy activity inside the step window
  std::optional<double> d2h_us;
  std::optional<double> pageable_h2d_us;
  std::optional<double> gpu_busy_us;   // union of kernel/memcpy/memset activity, all streams
  std::optional<double> gpu_idle_us;   // duration - busy
  std::optional<double> compute_us;    // union of computation kernels (HTA's name rules)
  std::optional<double> comm_us;       // union of communication (NCCL) kernels
  std::optional<double> comm_overlap_us;  // |comm ∩ compute|
  std::int64_t sync_calls = 0;         // synchronising runtime calls started in the step
  double sync_us = 0;
  std::int64_t kernel_launches = 0;    // kernels launched (by correlation) from the step
  std::int64_t short_kernels = 0;      // of those, kernels that ran shorter than their launch call
  bool launch_bound = false;
  bool operator==(const TraceStep&) const = default;
};
PLUMB_JSON(TraceStep, name, number, start_us, duration_us, complete, dataloader_us, optimizer_us, cpu_copy_us, h2d_us,
           d2h_us, pageable_h2d_us, gpu_busy_us, gpu_idle_us, compute_us, comm_us, comm_overlap_us, sync_calls, sync_us,
           kernel_launches, short_kernels, launch_bound)

// Peak caching-allocator totals of one device from the [memory] events.
struct TraceMemory {
  std::string device;  // "cuda:0" | "cpu"
  std::uint64_t peak_allocated_bytes = 0;
  std::uint64_t peak_reserved_bytes = 0;
  std::int64_t gap_bytes = 0;  // peak reserved - peak allocated
  std::int64_t events = 0;
  bool operator==(const TraceMemory&) const = default;
};
PLUMB_JSON(TraceMemory, device, peak_allocated_bytes, peak_reserved_bytes, gap_bytes, events)

// A CPU operator ranked by self time (its duration minus its nested children on the same thread).
struct TraceOp {
  std::string name;
  std::int64_t calls = 0;
  double self_us = 0;
  double total_us = 0;
  bool operator==(const TraceOp&) const = default;
};
PLUMB_JSON(TraceOp, name, calls, self_us, total_us)

// A synchronising runtime call name with its count and time inside the complete steps.
struct TraceSyncCall {
  std::string name;
  std::int64_t count = 0;
  double total_us = 0;
  bool operator==(const TraceSyncCall&) const = default;
};
PLUMB_JSON(TraceSyncCall, name, count, total_us)

// HTA's temporal breakdown and comm/comp overlap, computed with HTA's own definitions (including
// its iteration filter: the last ProfilerStep is dropped when there are two or more) so numbers
// can be checked against `TraceAnalysis.get_temporal_breakdown()`.
struct TraceHtaBreakdown {
  double kernel_time_us = 0;
  double idle_time_us = 0;
  double compute_time_us = 0;
  double non_compute_time_us = 0;
  double idle_pctg = 0;
  double compute_pctg = 0;
  double non_compute_pctg = 0;
  std::optional<double> comm_comp_overlap_pctg;  // null: no communication kernel
  // Not empty: the input is degenerate (a GPU span under 1 µs, a negative or over-100 % share after
  // HTA's rounding) and the breakdown is n/a for this reason; the shares are then 0, not reported.
  std::string unavailable;
  bool operator==(const TraceHtaBreakdown&) const = default;
};
PLUMB_JSON(TraceHtaBreakdown, kernel_time_us, idle_time_us, compute_time_us, non_compute_time_us, idle_pctg,
           compute_pctg, non_compute_pctg, comm_comp_overlap_pctg, unavailable)

// Totals over the complete steps. Each share is total time over total step time (not a mean of
// per-step ratios), as a fraction 0..1. A null value has its reason in `unavailable`.
struct TraceSummary {
  std::int64_t steps = 0;
  std::int64_t complete_steps = 0;
  double step_time_total_us = 0;
  std::optional<double> step_time_median_us;
  std::optional<double> step_time_min_us;
  std::optional<double> step_time_max_us;
  double dataloader_us = 0;
  std::optional<double> dataloader_share;
  std::string copy_source;  // "gpu_memcpy" | "cpu_aten_copy"
  double copy_us = 0;
  std::optional<double> copy_share;
  std::optional<double> h2d_us, d2h_us;
  std::uint64_t h2d_bytes = 0, d2h_bytes = 0;
  std::optional<double> h2d_gbps, d2h_gbps;  // bytes over summed copy durations (GB/s = 1e9 B/s)
  std::int64_t pageable_h2d_count = 0;       // pageable HtoD copies inside the complete steps
  double pageable_h2d_us = 0;
  std::uint64_t pageable_h2d_bytes = 0;
  double cpu_copy_us = 0;
  std::optional<double> cpu_copy_share;
  std::optional<double> gpu_busy_us, gpu_idle_us, gpu_idle_share;
  std::optional<double> compute_us, comm_us, comm_overlap_us;
  std::optional<double> comm_overlap;  // |comm ∩ compute| / |comm|
  std::int64_t sync_calls = 0;
  double sync_us = 0;
  std::optional<double> sync_share;
  std::vector<TraceSyncCall> sync_by_name;
  std::int64_t kernel_launches = 0;
  std::int64_t short_kernels = 0;
  std::int64_t launch_bound_steps = 0;
  double optimizer_us = 0;
  std::optional<double> optimizer_share;
  std::vector<TraceMemory> memory;
  std::vector<TraceOp> top_ops;
  std::optional<TraceHtaBreakdown> hta;
  std::map<std::string, std::string> unavailable;  // field -> why it has no value
  bool operator==(const TraceSummary&) const = default;
};
PLUMB_JSON(TraceSummary, steps, complete_steps, step_time_total_us, step_time_median_us, step_time_min_us,
           step_time_max_us, dataloader_us, dataloader_share, copy_source, copy_us, copy_share, h2d_us, d2h_us,
           h2d_bytes, d2h_bytes, h2d_gbps, d2h_gbps, pageable_h2d_count, pageable_h2d_us, pageable_h2d_bytes,
           cpu_copy_us, cpu_copy_share, gpu_busy_us, gpu_idle_us, gpu_idle_share, compute_us, comm_us,
           comm_overlap_us, comm_overlap, sync_calls, sync_us, sync_share, sync_by_name, kernel_launches,
           short_kernels, launch_bound_steps, optimizer_us, optimizer_share, memory, top_ops, hta, unavailable)

// One trace file (one rank).
struct TraceRank {
  std::string file;                     // as given on the command line
  std::string format;                   // "kineto" | "legacy"
  std::optional<std::int64_t> rank;     // distributedInfo.rank, else rankN in the file name
  std::string rank_source;              // "distributedInfo" | "file name" | ""
  std::optional<std::int64_t> world_size;
  std::string accelerator;              // "cuda" | "rocm" | "mtia" | "cupti_range" | "none"
  std::vector<std::string> devices;     // deviceProperties names
  std::uint64_t bytes = 0;              // uncompressed JSON bytes read
  std::int64_t events = 0;
  double parse_ms = 0;
  std::vector<std::string> notes;       // codes: no_profiler_steps, last_step_partial, ...
  // Wall-clock time of the first event (Unix seconds: baseTimeNanoseconds + ts, or ts when it is
  // already an epoch time) and the length of the traced window; unknown for relative clocks.
  std::optional<double> start_unix_s;
  double window_s = 0;
  std::int64_t job = 0;                 // 1-based job these traces were grouped into (0: not grouped)
  std::vector<TraceStep> steps;
  TraceSummary summary;
  bool operator==(const TraceRank&) const = default;
};
PLUMB_JSON(TraceRank, file, format, rank, rank_source, world_size, accelerator, devices, bytes, events, parse_ms, notes,
           start_unix_s, window_s, job, steps, summary)

// Across ranks: the median step time of each rank compared with the median of all ranks.
struct TraceCrossRank {
  std::int64_t ranks = 0;
  double median_step_us = 0;  // median over ranks of each rank's median step time
  double min_step_us = 0;
  double max_step_us = 0;
  double spread = 0;          // (max - min) / median
  std::string slowest;        // "rank 3"
  double slowest_excess = 0;  // slowest / median - 1
  std::int64_t job = 0;       // the job compared (TraceRank::job)
  bool operator==(const TraceCrossRank&) const = default;
};
PLUMB_JSON(TraceCrossRank, ranks, median_step_us, min_step_us, max_step_us, spread, slowest, slowest_excess, job)

struct TraceFacts {
  bool collected = false;  // true once `plumb trace` analysed at least one file
  std::vector<TraceRank> traces;
  // Traces that cannot be ranks of one job (a rank claimed twice, different world sizes or GPU
  // models, profiling windows apart in time, disjoint step numbers) are grouped into jobs; ranks
  // are compared within the largest job only, and `jobs_evidence` says why they were split.
  std::int64_t jobs = 0;
  std::vector<std::string> jobs_evidence;
  std::optional<TraceCrossRank> cross_rank;
  std::string cross_rank_missing;  // why there is no cross-rank comparison
  bool operator==(const TraceFacts&) const = default;
};
PLUMB_JSON(TraceFacts, collected, traces, jobs, jobs_evidence, cross_rank, cross_rank_missing)

}  // namespace plumb
