// `plumb trace FILE|DIR...`: the data and compute layers from PyTorch profiler traces. Reads each
// trace (streaming), fills TraceFacts, judges the l2.trace.* rules and renders like `plumb check`.
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "analyze/trace/pod_vector.h"
#include "analyze/trace/reader.h"
#include "engine/machine.h"
#include "engine/trace.h"
#include "engine/output.h"
#include "engine/timings.h"
#include "collect/cgroup.h"
#include "collect/memory.h"
#include "report/progress_text.h"
#include "core/progress.h"
#include "core/registry.h"
#include "core/text.h"

namespace plumb {

namespace {

trace::StepFilter parse_steps(const std::string& s) {
  trace::StepFilter f;
  if (s.empty()) return f;
  auto dash = s.find('-');
  auto a = parse_int(s.substr(0, dash));
  auto b = dash == std::string::npos ? a : parse_int(s.substr(dash + 1));
  if (!a || !b || *a < 0 || *b < *a) throw UsageError("--steps " + s + ": expected A-B with 0 <= A <= B, or one step N");
  f.first = *a;
  f.last = *b;
  return f;
}

// The analysis builds arrays of the trace's records by doubling and frees them in turn. glibc maps
// each block above its dynamic mmap threshold (128 KiB, rising to 32 MiB) on its own and unmaps it on
// free, so every reuse faults its pages in again. Kept in the heap instead, a 300 MB trace takes a
// third fewer page faults (docs/performance-trace.md).
void keep_freed_blocks() {
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  // Called before the reader starts any thread (glibc's mallopt takes the arena lock anyway).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // NOLINT(concurrency-mt-unsafe): glibc's largest on 64-bit (mallopt(3))
  mallopt(M_TRIM_THRESHOLD, 256 << 20);  // NOLINT(concurrency-mt-unsafe)
#endif
}

// On a guest whose kernel reports free memory to its host (free page reporting), a transparent huge
// page taken from memory freed more than 2 s before is backed again by the host while the kernel
// zeroes it: 25-30 us per 4 KiB against about 2 us for a small page on the VM measured, where a
// one-thread run of a 1 GB trace spent 0.4-0.65 s more in the kernel with huge pages
// (docs/performance-trace.md). The record arrays then take small pages.
void choose_record_pages() {
  if (free_page_reporting_device(HostRoot("/"))) trace::pod_vector_huge_pages = false;
}

}  // namespace

int run_trace(const TraceOptions& a) {
  keep_freed_blocks();
  choose_record_pages();
  Config cfg = load_config_or_throw(a.config);
  check_output(a.output);  // fails early with the hint; validates --lang
  refuse_one_file_twice(a.output.out, a.save, "--save");
  trace::TraceOptions opt;
  opt.steps = parse_steps(a.steps);
  auto files = trace::expand_trace_inputs(a.inputs);
  if (!files) throw UsageError(files.error().message);

  if (a.threads < 0) throw UsageError("--threads " + std::to_string(a.threads) + ": expected 1 or more (0: every CPU plumb may use)");
  opt.threads = a.threads > 0 ? a.threads : usable_cpus(HostRoot("/"));

  auto start = std::chrono::steady_clock::now();
  std::optional<trace::TraceTimings> timings;
  if (a.timings) opt.timings = &timings.emplace(start);
  Report r = new_report("trace", host_name(HostRoot("/")));
  // Progress on a terminal when reading takes more than two seconds: files and bytes done.
  std::vector<std::uint64_t> sizes;
  std::uint64_t total = 0;
  for (const auto& f : *files) {
    std::error_code ec;
    auto n = std::filesystem::file_size(f, ec);
    sizes.push_back(ec ? 0 : static_cast<std::uint64_t>(n));
    total += sizes.back();
  }
  std::atomic<std::size_t> done{0};
  std::atomic<std::uint64_t> bytes_done{0};
  opt.on_file_done = [&](std::size_t i) {
    bytes_done += sizes[i];
    ++done;
  };
  const Lang lang = render_options(a.output).lang;
  std::vector<Result<TraceRank>> results;
  {
    ProgressLine line("plumb trace", std::chrono::seconds(2), [&] {
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return progress_traces(lang, done.load(), files->size(), bytes_done.load(), total, files->empty() ? std::string() : files->front(), s);
    });
    results = trace::analyze_trace_files(*files, opt);
  }
  for (std::size_t i = 0; i < files->size(); ++i) {
    const auto& file = (*files)[i];
    auto& t = results[i];
    if (!t) throw UsageError(t.error().message);
    r.facts.meta.collectors.push_back({"trace " + file, "ok", t->parse_ms, {}});
    if (a.rank_given && (!t->rank || *t->rank != a.rank)) continue;
    r.facts.trace.traces.push_back(std::move(t.value()));
  }
  if (r.facts.trace.traces.empty()) {
    throw UsageError("--rank " + std::to_string(a.rank) + ": no trace of that rank among " + std::to_string(files->size()) +
                     " file(s)");
  }
  r.facts.trace.collected = true;
  trace::group_and_compare(r.facts.trace);
  r.facts.meta.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  Selection sel;
  sel.only = {"l2.trace"};
  sel.skip = cfg.skip;
  r.findings = judge(r.facts, cfg.thresholds, sel);
  save_report(r, a.save, render_options(a.output));
  emit(r, a.output);
  if (timings) {
    auto timed = timings->files();
    // In the order of the command line, not the order the files were done in.
    std::map<std::string, std::size_t> order;
    for (std::size_t i = 0; i < files->size(); ++i) order.emplace((*files)[i], i);
    std::stable_sort(timed.begin(), timed.end(),
                     [&](const auto& x, const auto& y) { return order[x.file] < order[y.file]; });
    std::cerr << render_trace_timings(timed, timings->now_ms(), lang);
  }
  return exit_code_for(r.findings);
}


}  // namespace plumb
