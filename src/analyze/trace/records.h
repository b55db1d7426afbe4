// Compact records the reader keeps while streaming (a few tens of bytes per relevant event, against
// hundreds of bytes of JSON each), and the analysis that turns them into steps and a summary.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyze/trace/classify.h"
#include "analyze/trace/pod_vector.h"
#include "core/facts/trace.h"

namespace plumb::trace {

struct Span {  // an annotation or CPU op interval
  double ts = 0, end = 0;
};

struct StepSpan {
  double ts = 0, end = 0;
  std::int64_t number = -1;
  std::string name;
};

struct CpuRec {  // for self time: one CPU op or runtime call (kept per thread)
  double ts = 0, end = 0;
  std::uint32_t name = 0;  // interned
  bool op = false;         // ranked as an operator (cpu_op); runtime calls only nest
};

struct GpuRec {  // kernel, memcpy, memset (and cuda_sync rows with a stream, for HTA)
  double ts = 0, end = 0;
  std::int64_t correlation = -1;
  Cat cat = Cat::kernel;
  bool on_stream = false;  // stream != -1: the rows of HTA's breakdown (the stream itself is not used)
  KernelType type = KernelType::other;
  bool hta_gpu = false;  // HTA's GPU predicate: (stream >= 0 and correlation >= 0) or Event/Context Sync
  CopyDir dir = CopyDir::other;
  bool pageable = false;
  double bytes = 0;
};

// One per kernel, copy and memset: 40 bytes, the largest share of a GPU trace's records.
static_assert(sizeof(GpuRec) <= 40);

// A CPU row with a correlation id (runtime calls): 24 bytes, the id and the launch flag in one word.
// Only ids >= 0 are kept, and every one of them fits in 63 bits.
struct CorrRec {
  std::uint64_t correlation : 63 = 0;
  std::uint64_t launch : 1 = 0;
  double ts = 0, dur = 0;
  [[nodiscard]] std::int64_t id() const { return static_cast<std::int64_t>(correlation); }
};
static_assert(sizeof(CorrRec) == 24);

struct SyncRec {
  double ts = 0, end = 0;
  std::uint32_t name = 0;
};

struct MemoryAccum {
  std::int64_t events = 0;
  double peak_allocated = -1;
  double peak_reserved = -1;
};

// Everything the reader collected from one file.
struct TraceRecords {
  std::vector<StepSpan> steps;
  PodVector<Span> dataloader, optimizer, cpu_copy;
  // By thread (index = interned (pid, tid)): CPU ops and annotations, and runtime calls apart, as
  // Kineto writes them in two sections, each almost in time order.
  std::vector<PodVector<CpuRec>> cpu, runtime;
  // By thread, the same rows of the parts read after the first (parallel reading), one array per
  // part in file order: the merge hands the parts' arrays over instead of copying them (the copy
  // and its fresh pages were most of the merge's cost). The top operators walk a thread's arrays
  // merged on the fly, which orders them as one sorted array would (sort_records).
  std::vector<std::vector<PodVector<CpuRec>>> cpu_later, runtime_later;
  PodVector<GpuRec> gpu;
  // The GPU rows of the parts read after the first, one array per part in file order (handed over
  // by the merge like cpu_later; every use of the GPU rows is a pass in file order: gpu_parts()).
  std::vector<PodVector<GpuRec>> gpu_later;
  PodVector<CorrRec> corr;
  // The correlation rows of the parts read after the first, one array per part in file order, handed
  // over by the merge like gpu_later (copied, they were most of its time): corr_parts(), and
  // CorrLookup to find a correlation id in them.
  std::vector<PodVector<CorrRec>> corr_later;
  // Kernel launches are counted per step from the correlation rows with `launch` set; this holds the
  // start of each launch call without a correlation id (rare), which has no such row. A separate
  // array of every launch was 16 bytes a launch, 2 MB of fresh pages in a 300 MB trace.
  PodVector<double> uncorrelated_launches;
  PodVector<SyncRec> syncs;
  std::vector<std::string> names;  // interned names by id
  std::map<std::pair<std::int64_t, std::int64_t>, MemoryAccum> memory;  // (device type, id)
  std::vector<std::string> hta_step_names;  // distinct ProfilerStep names (any category)
  double hta_last_step_ts = 0;
  bool any_fractional_ts = false;
  double first_ts = 0, last_end = 0;
  bool any_x = false;
  std::int64_t n_kernel = 0, n_memcpy = 0, n_memset = 0, n_mtia = 0, n_profiler_range = 0;
  // GPU rows by kernel type: how large the analysis' interval lists can get, so they are allocated
  // and made present once (fresh pages are the analysis' largest cost on a VM).
  std::int64_t n_compute_rows = 0, n_comm_rows = 0;
  bool hip_runtime = false;
  std::optional<std::int64_t> rank, world_size;
  std::optional<double> base_time_ns;  // baseTimeNanoseconds: the clock that ts values are relative to
  std::vector<std::string> devices;
  // The GPU rows in file order: `gpu`, then the arrays of later parts.
  [[nodiscard]] std::vector<const PodVector<GpuRec>*> gpu_parts() const {
    std::vector<const PodVector<GpuRec>*> v{&gpu};
    for (const auto& later : gpu_later) v.push_back(&later);
    return v;
  }
  [[nodiscard]] std::vector<const PodVector<CorrRec>*> corr_parts() const {
    std::vector<const PodVector<CorrRec>*> v{&corr};
    for (const auto& later : corr_later) v.push_back(&later);
    return v;
  }
  [[nodiscard]] std::size_t gpu_rows() const {
    std::size_t n = gpu.size();
    for (const auto& later : gpu_later) n += later.size();
    return n;
  }
  // A thread's two record arrays (CPU ops, runtime calls), appended at index cpu.size(), with the
  // pages the other arrays take.
  void add_thread() {
    cpu.emplace_back();
    runtime.emplace_back();
    cpu_later.emplace_back();
    runtime_later.emplace_back();
    if (!huge_pages) {
      cpu.back().small_pages();
      runtime.back().small_pages();
    }
  }
  // Small pages for every record array, those of threads added later included (PodVector::small_pages):
  // for the records of a part read on its own thread, written once and read once (by the merge, or
  // handed over by it to the analysis).
  bool huge_pages = true;
  void small_pages() {
    huge_pages = false;
    for (auto* v : {&dataloader, &optimizer, &cpu_copy}) v->small_pages();
    uncorrelated_launches.small_pages();
    gpu.small_pages();
    corr.small_pages();
    syncs.small_pages();
    for (auto& v : cpu) v.small_pages();
    for (auto& v : runtime) v.small_pages();
  }
};

// Finds correlation rows by id in the parts' arrays, each sorted by id (sort_records), as if they
// were one array sorted stably: among equal ids, the rows of an earlier part first. Only the arrays
// whose first and last ids span the id are searched (found by a binary search over the arrays'
// first ids: a trace read in a hundred parts asks a few arrays, not a hundred), each from its
// previous answer (ids are asked for in almost rising order, as kernels were launched).
class CorrLookup {
 public:
  explicit CorrLookup(const std::vector<const PodVector<CorrRec>*>& parts);
  // The first row with this id in that order, or null.
  const CorrRec* first(std::int64_t id);
  // Whether a row with this id satisfies pred (rows in that order).
  template <class Pred>
  bool any(std::int64_t id, Pred pred) {
    spanning(id);
    for (std::uint32_t k : spans_) {
      Run& r = runs_[k];
      for (const CorrRec* it = find(r, id); it != r.end && it->id() == id; ++it) {
        if (pred(*it)) return true;
      }
    }
    return false;
  }

 private:
  struct Run {
    const CorrRec* begin;
    const CorrRec* end;
    const CorrRec* at;  // the previous answer
  };
  // The first row of r with an id not below `id`; r.end when the id is outside r's ids.
  static const CorrRec* find(Run& r, std::int64_t id);
  // The arrays whose ids span `id`, in part order, into spans_.
  void spanning(std::int64_t id);
  std::vector<Run> runs_;
  std::vector<std::int64_t> lows_;     // the arrays' first ids, ascending
  std::vector<std::uint32_t> order_;   // the array of each entry of lows_
  std::vector<std::int64_t> reach_;    // the largest last id of entries 0..i of lows_
  std::vector<std::uint32_t> spans_;
};

struct StepFilter {
  std::int64_t first = 0;
  std::int64_t last = -1;  // < first: no filter
  [[nodiscard]] bool active() const { return last >= first; }
};

// Sorts the records the analysis needs in order (the correlation rows by correlation, each thread's
// CPU ops and runtime calls by start, enclosing first), stably. The records of a trace read in parts
// are sorted part by part on the parts' threads, and the merge keeps each part's arrays apart
// (cpu_later, runtime_later, corr_later): the analysis walks a thread's arrays merged on the fly and
// looks correlation ids up part by part (CorrLookup), earlier parts first on ties, which is the
// order one stable sort of them all gives.
void sort_records(TraceRecords& rec);

// Steps, summary and notes of one rank from its records (records are sorted in place). With
// threads > 1, HTA's breakdown runs on a second thread beside the rest.
Result<bool> analyze_records(TraceRecords& rec, const StepFilter& filter, TraceRank& out, int threads = 1);

// HTA's temporal breakdown and comm/comp overlap (HolisticTraceAnalysis @f4d0062c) from the GPU rows.
std::optional<TraceHtaBreakdown> hta_breakdown(const TraceRecords& rec);

}  // namespace plumb::trace
