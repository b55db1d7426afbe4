// plumb trace's library entry points: analyse one trace file (or bytes) into a TraceRank, expand
// folders into trace files, and compare ranks.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/trace/records.h"
#include "analyze/trace/source.h"
#include "analyze/trace/stream.h"
#include "core/facts/trace.h"
#include "core/result.h"

namespace plumb::trace {

// Where one file's time went (`plumb trace --timings`), in milliseconds from TraceTimings' origin.
struct TracePartTiming {
  std::uint64_t offset = 0, bytes = 0;  // where the part began in the file, and its length as read
  double start_ms = 0, end_ms = 0;      // read, its records sorted (a part read in parallel)
  double cpu_ms = 0;                    // its thread's CPU time over that span
  long thread = 0;                      // the thread's Linux id (gettid), as perf and strace -f show it
};

struct TraceFileTiming {
  std::string file;
  double start_ms = 0;                  // the file opened
  double cut_ms = -1;                   // its parts cut, their threads about to start (a read in parts)
  std::vector<TracePartTiming> parts;   // in file order; one for a file read on one thread
  std::string inflater;                 // a gzip file: the library that inflated it (ISA-L, zlib)
  double read_ms = 0;                   // every part read
  double merge_ms = -1;                 // the parts' records merged (a read in parts)
  double end_ms = 0;                    // analysed: steps, summary, HTA's breakdown
};

// Collects the files' timings from every reading thread.
class TraceTimings {
 public:
  explicit TraceTimings(std::chrono::steady_clock::time_point origin) : origin_(origin) {}
  [[nodiscard]] double now_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - origin_).count();
  }
  void add(TraceFileTiming t) {
    std::lock_guard<std::mutex> lock(mu_);
    files_.push_back(std::move(t));
  }
  // In the order the files were done.
  [[nodiscard]] std::vector<TraceFileTiming> files() const {
    std::lock_guard<std::mutex> lock(mu_);
    return files_;
  }

 private:
  std::chrono::steady_clock::time_point origin_;
  mutable std::mutex mu_;
  std::vector<TraceFileTiming> files_;
};

struct TraceOptions {
  StepFilter steps;
  StreamLimits limits;
  // Threads for one trace (its events array cut into parts read at once, then merged in file order:
  // the result equals the one-thread read), and for the files of analyze_trace_files.
  int threads = 1;
  // A trace is cut into at most size / min_part parts.
  std::size_t min_part = std::size_t{8} << 20;
  // A thread done with its part takes over half of what is left of the largest part still being
  // read while that is at least this many bytes (0: never).
  std::size_t min_steal = std::size_t{16} << 20;
  // A gzip trace read on several threads is cut, as it is inflated, into parts of about this many
  // bytes of JSON (the first one smaller, 1 MiB), each read on the thread that inflated it; each
  // thread keeps a buffer of this size (docs/performance-trace.md).
  std::size_t stream_part = std::size_t{4} << 20;
  // false: every event through simdjson On-Demand, not plumb's own scanner first (to compare them).
  bool fast_scan = true;
  // When set: receives the number of parts the trace was read in (1: on one thread).
  std::size_t* parts_read = nullptr;
  // When set: counts the batches of events plumb's scanner handed to simdjson (from any thread).
  std::atomic<std::uint64_t>* simdjson_batches = nullptr;
  // analyze_trace_files: called (from the reading thread) when the file at this index is done.
  std::function<void(std::size_t)> on_file_done;
  // When set: receives each file's timings (from the thread that read it).
  TraceTimings* timings = nullptr;
};

// Streams a plain or gzip trace file (Kineto or legacy format) and analyses it.
Result<TraceRank> analyze_trace_file(const std::string& path, const TraceOptions& opt = {});
// The same on bytes in memory (plain or gzip); `name` is used in errors and as the file name.
Result<TraceRank> analyze_trace_bytes(std::string_view data, const std::string& name, const TraceOptions& opt = {});

// The same on an uncompressed trace with random access, in parts on opt.threads threads.
Result<TraceRank> analyze_trace_random_access(const RandomAccess& ra, const std::string& name, const TraceOptions& opt = {});

// Several files, up to opt.threads at once (a file gets threads of its own when there are fewer
// files than threads); results in the order of `paths`.
std::vector<Result<TraceRank>> analyze_trace_files(const std::vector<std::string>& paths, const TraceOptions& opt = {});

// Files to analyse: each argument is a trace file or a folder whose *.json / *.json.gz files are
// taken (sorted by name). Errors name the argument.
Result<std::vector<std::string>> expand_trace_inputs(const std::vector<std::string>& args);

// "rank3", "rank-3", "rank_3" in the file name (case-insensitive) -> 3.
std::optional<std::int64_t> rank_from_file_name(std::string_view path);

// Step-time spread and the slowest rank over traces with complete steps; nullopt with `why`
// when there are fewer than two.
std::optional<TraceCrossRank> compare_ranks(const std::vector<TraceRank>& traces, std::string& why);

// Why traces a and b cannot be ranks of one job ("" when they can be): the same rank claimed
// twice, different world sizes, different GPU models, profiling windows more than
// kJobClockSlackS apart in wall-clock time, or disjoint ProfilerStep numbers.
inline constexpr double kJobClockSlackS = 5.0;
std::string different_jobs(const TraceRank& a, const TraceRank& b);
// Groups f.traces into jobs (each trace joins the first job whose every member it can share a job
// with), sets each trace's job, f.jobs and f.jobs_evidence, then compares the ranks of the largest
// job with at least two traces (f.cross_rank, or f.cross_rank_missing with the reason).
void group_and_compare(TraceFacts& f);
// "rank 3", or the file name when the rank is unknown.
std::string rank_label(const TraceRank& t);

}  // namespace plumb::trace
