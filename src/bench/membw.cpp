// membw: host memory bandwidth, STREAM-style copy and triad, one thread and all allowed CPUs,
// each thread pinned and owning arrays it touched first (so they live on its NUMA node); with
// more than one node also a remote copy (node 0 CPU reading node 1 memory).
#include "bench/membw.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "bench/bench.h"
#include "bench/context.h"
#include "bench/stats.h"
#include "core/text.h"

namespace plumb {

namespace {

constexpr std::uint64_t kMembwMiB = 1ull << 20;

struct FreeDeleter {
  void operator()(double* p) const { std::free(p); }  // NOLINT: aligned_alloc pairs with free
};
using Array = std::unique_ptr<double[], FreeDeleter>;

// 2 MiB-aligned and advised as huge pages (transparent huge pages in "madvise" or "always" mode):
// with 4 KiB pages each run gets another scatter of physical pages and another TLB miss rate, and
// the median moved 12-37 % between runs on a VM; with huge pages the layout is the same each time.
constexpr std::size_t kHugePage = std::size_t{2} << 20;
Array alloc_array(std::size_t count) {
  std::size_t bytes = (count * sizeof(double) + kHugePage - 1) / kHugePage * kHugePage;
  auto* p = static_cast<double*>(std::aligned_alloc(kHugePage, bytes));
  if (p != nullptr) (void)::madvise(p, bytes, MADV_HUGEPAGE);  // a hint: ignored where THP is off
  return Array(p);
}

// The kernels are built optimised even in debug and sanitizer builds: an -O0 loop measures the
// compiler, not the memory. (clang has no per-function optimize attribute.)
#if defined(__clang__)
#define PLUMB_KERNEL __attribute__((no_sanitize("address", "undefined")))
#else
#define PLUMB_KERNEL __attribute__((optimize("O3"), no_sanitize("address", "undefined")))
#endif

PLUMB_KERNEL void triad_kernel(
    double* __restrict a, const double* __restrict b, const double* __restrict c, std::size_t n, double s) {
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

PLUMB_KERNEL void fill_kernel(double* a, std::size_t n, double v) {
  for (std::size_t i = 0; i < n; ++i) a[i] = v;
}

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set);
}

enum class Kernel { copy, triad };

// A group of pinned threads, each with its own three arrays, driven pass by pass by the caller.
// `memory_cpus` (same length as `cpus`) says where each thread's arrays are first touched.
class Team {
 public:
  Team(std::vector<int> cpus, std::vector<int> memory_cpus, std::size_t per_thread_doubles)
      : cpus_(std::move(cpus)), n_(per_thread_doubles), start_(static_cast<std::ptrdiff_t>(cpus_.size() + 1)),
        end_(static_cast<std::ptrdiff_t>(cpus_.size() + 1)) {
    a_.resize(cpus_.size());
    b_.resize(cpus_.size());
    c_.resize(cpus_.size());
    began_.resize(cpus_.size());
    ended_.resize(cpus_.size());
    // First touch decides the NUMA node of each page: a helper thread pinned to the memory CPU.
    // The benchmarks start, pin and time their own threads: measured work, not a task group (core/parallel.h).
    std::vector<std::thread> touch;
    for (std::size_t i = 0; i < cpus_.size(); ++i) {
      touch.emplace_back([this, i, mcpu = memory_cpus[i]] {
        pin_to(mcpu);
        a_[i] = alloc_array(n_);
        b_[i] = alloc_array(n_);
        c_[i] = alloc_array(n_);
        if (a_[i] && b_[i] && c_[i]) {
          fill_kernel(a_[i].get(), n_, 1.0);
          fill_kernel(b_[i].get(), n_, 2.0);
          fill_kernel(c_[i].get(), n_, 0.5);
        }
      });
    }
    for (auto& t : touch) t.join();
    for (std::size_t i = 0; i < cpus_.size(); ++i) ok_ = ok_ && a_[i] && b_[i] && c_[i];
    if (!ok_) return;
    for (std::size_t i = 0; i < cpus_.size(); ++i) workers_.emplace_back([this, i] { work(i); });
  }
  ~Team() {
    quit_ = true;
    if (!workers_.empty()) start_.arrive_and_wait();
    for (auto& t : workers_) t.join();
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  [[nodiscard]] bool ok() const { return ok_; }
  // Wall seconds for one pass of every thread over its arrays: from the first thread's start to the
  // last one's end, each read by the thread itself around its kernel. Timed from this thread, a pass
  // would also count waking the workers and being woken by them: 0.12-0.18 ms a pass on a VM, about
  // 1 % of a 256 MiB copy (bench/membw_loops.cpp).
  double pass(Kernel k) {
    kernel_ = k;
    start_.arrive_and_wait();
    end_.arrive_and_wait();
    auto first = *std::min_element(began_.begin(), began_.end());
    auto last = *std::max_element(ended_.begin(), ended_.end());
    return std::chrono::duration<double>(last - first).count();
  }
  // Bytes a pass moves, STREAM's convention: copy reads and writes n, triad reads 2n and writes n.
  [[nodiscard]] double bytes(Kernel k) const {
    double per = static_cast<double>(n_ * sizeof(double)) * (k == Kernel::copy ? 2.0 : 3.0);
    return per * static_cast<double>(cpus_.size());
  }

 private:
  void work(std::size_t i) {
    pin_to(cpus_[i]);
    for (;;) {
      start_.arrive_and_wait();
      if (quit_) return;
      began_[i] = std::chrono::steady_clock::now();
      if (kernel_ == Kernel::copy) {
        std::memcpy(a_[i].get(), b_[i].get(), n_ * sizeof(double));
      } else {
        triad_kernel(a_[i].get(), b_[i].get(), c_[i].get(), n_, 3.0);
      }
      ended_[i] = std::chrono::steady_clock::now();
      end_.arrive_and_wait();
    }
  }

  std::vector<int> cpus_;
  std::size_t n_;
  std::vector<Array> a_, b_, c_;
  std::vector<std::thread> workers_;
  // Each worker's start and end of the current pass, written by it before the end barrier.
  std::vector<std::chrono::steady_clock::time_point> began_, ended_;
  std::barrier<> start_, end_;
  Kernel kernel_ = Kernel::copy;
  bool quit_ = false;
  bool ok_ = true;
};

std::vector<double> measure(Team& team, Kernel k, int warmup, int samples, const BenchOptions& o, Progress& p,
                            const std::string& label) {
  std::vector<double> v;
  // Warm-up until stable: the given number of passes, then more (at most kMaxExtraWarmup) until two
  // passes in a row agree within 2 %. The first copies after allocation ran 5-8 % slower than
  // the rest on a VM (page-table and cache warm-up), which moved a 10-sample median.
  constexpr int kMaxExtraWarmup = 8;
  double last = 0;
  for (int i = 0; i < warmup + kMaxExtraWarmup && !o.stop(); ++i) {
    double s = team.pass(k);
    double rate = s > 0 ? team.bytes(k) / s : 0;
    if (i + 1 >= warmup && last > 0 && rate > 0 && std::abs(rate - last) <= 0.02 * last) break;
    last = rate;
  }
  for (int i = 0; i < samples && !o.stop(); ++i) {
    p.update(label + " " + std::to_string(i + 1) + "/" + std::to_string(samples));
    double s = team.pass(k);
    if (s > 0) v.push_back(team.bytes(k) / s / 1e9);
  }
  return v;
}

}  // namespace

MembwPlan plan_membw(std::uint64_t requested, std::optional<std::uint64_t> llc, int threads, int nodes,
                     std::uint64_t phys_bytes, bool quick) {
  MembwPlan p;
  // Arrays well beyond the caches: at least 4 × the last-level cache of every node.
  std::uint64_t floor_bytes = llc ? 4 * *llc * static_cast<std::uint64_t>(std::max(1, nodes)) : 64 * kMembwMiB;
  std::uint64_t want = requested > 0 ? requested : std::max<std::uint64_t>(quick ? 64 * kMembwMiB : 256 * kMembwMiB, floor_bytes);
  // Three arrays per run; keep the whole thing under a quarter of RAM.
  if (phys_bytes > 0) want = std::min<std::uint64_t>(want, phys_bytes / 12);
  want = std::max<std::uint64_t>(want, kMembwMiB);
  p.single_bytes = want / 8 * 8;
  int t = std::max(1, threads);
  std::uint64_t per = std::max<std::uint64_t>(want / static_cast<std::uint64_t>(t), 4 * kMembwMiB);
  if (phys_bytes > 0) per = std::min<std::uint64_t>(per, phys_bytes / 12 / static_cast<std::uint64_t>(t));
  p.per_thread_bytes = std::max<std::uint64_t>(per / 8 * 8, 8);
  return p;
}

namespace {

Result<BenchResult> run_membw(const Context& ctx, const BenchOptions& o) {
  BenchResult r;
  auto cpus = affinity_cpus();  // one pinned thread per CPU of the mask
  auto nodes = numa_nodes(ctx.root, cpus);
  int threads = o.threads > 0 ? std::min<int>(o.threads, static_cast<int>(cpus.size())) : static_cast<int>(cpus.size());
  std::uint64_t phys = static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  MembwPlan plan = plan_membw(o.size_bytes, last_level_cache_bytes(ctx.root), threads,
                              std::max<int>(1, static_cast<int>(nodes.size())), phys, o.quick);
  int samples = o.samples > 0 ? o.samples : (o.quick ? 3 : 10);
  int warmup = std::max(0, o.warmup);
  r.params["array_bytes_1t"] = std::to_string(plan.single_bytes);
  r.params["array_bytes_per_thread"] = std::to_string(plan.per_thread_bytes);
  r.params["threads_all"] = std::to_string(threads);
  r.params["samples"] = std::to_string(samples);
  r.params["warmup"] = std::to_string(warmup);
  r.notes["method"] = "STREAM-style: copy counts 2 x array bytes (memcpy), triad 3 x (a = b + s*c), GB = 1e9 bytes";
  r.notes["numa_nodes"] = std::to_string(std::max<std::size_t>(1, nodes.size()));
  // The arrays ask for transparent huge pages; whether the kernel grants them is its mode.
  if (auto thp = ctx.root.read_value("/sys/kernel/mm/transparent_hugepage/enabled")) {
    r.notes["huge_pages"] = "2 MiB pages advised (MADV_HUGEPAGE); transparent_hugepage: " + *thp;
  }
  auto llc = last_level_cache_bytes(ctx.root);
  if (llc && plan.single_bytes < 4 * *llc) {
    r.notes["warning"] = "arrays of " + human_bytes(plan.single_bytes) + " are under 4 x the last-level cache (" + human_bytes(*llc) +
                         "): this measures caches and thread wake-up, not memory";
  }
  Progress p(o.progress, "membw");

  std::vector<int> all(cpus.begin(), cpus.begin() + threads);
  {
    Team one({cpus.front()}, {cpus.front()}, plan.single_bytes / sizeof(double));
    if (!one.ok()) return make_error(ErrorKind::io, "membw: cannot allocate 3 x " + human_bytes(plan.single_bytes));
    r.metrics.push_back(make_metric("membw.copy.1t", "GB/s", true, measure(one, Kernel::copy, warmup, samples, o, p, "copy 1 thread")));
    r.metrics.push_back(make_metric("membw.triad.1t", "GB/s", true, measure(one, Kernel::triad, warmup, samples, o, p, "triad 1 thread")));
  }
  if (threads > 1 && !o.stop()) {
    Team team(all, all, plan.per_thread_bytes / sizeof(double));
    if (!team.ok()) return make_error(ErrorKind::io, "membw: cannot allocate arrays for " + std::to_string(threads) + " threads");
    std::string l = std::to_string(threads) + " threads";
    r.metrics.push_back(make_metric("membw.copy.all", "GB/s", true, measure(team, Kernel::copy, warmup, samples, o, p, "copy " + l)));
    r.metrics.push_back(make_metric("membw.triad.all", "GB/s", true, measure(team, Kernel::triad, warmup, samples, o, p, "triad " + l)));
  }
  if (nodes.size() > 1 && !o.stop()) {
    // One CPU of node 0 working on arrays first touched by a CPU of node 1.
    Team remote({nodes[0].front()}, {nodes[1].front()}, plan.single_bytes / sizeof(double));
    if (remote.ok()) {
      r.metrics.push_back(make_metric("membw.copy.remote", "GB/s", true, measure(remote, Kernel::copy, warmup, samples, o, p, "copy remote node")));
      r.notes["remote"] = "cpu " + std::to_string(nodes[0].front()) + " reading memory of node 1 (first touched by cpu " +
                          std::to_string(nodes[1].front()) + ")";
    }
  }
  for (const auto& m : r.metrics) {
    if (m.samples == 0) return make_error(ErrorKind::internal, "membw: no sample measured");
  }
  return r;
}


}  // namespace
void bench_membw_tables(BenchTables& b) {
  b.add_bench({"membw",
                                    {"host memory bandwidth (copy, triad; 1 thread and all allowed CPUs)",
                                     "主机内存带宽（copy、triad；单线程与全部可用 CPU）"},
                                    {"[--size BYTES] [--threads N] [--samples N]", "[--size 字节] [--threads N] [--samples N]"},
                                    false, false, true, run_membw});
}

}  // namespace plumb
