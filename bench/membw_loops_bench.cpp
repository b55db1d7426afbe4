// Where `plumb bench membw` and mbw (Debian's mbw 1.2.2, `mbw -q -n 10 -t0 256`) can differ, one
// factor at a time, in one run: the same 256 MiB glibc memcpy on one pinned CPU,
//   * allocation: mbw's (calloc, then every long written: its make_array) against plumb's (a 2 MiB-
//     aligned anonymous mapping advised MADV_HUGEPAGE, then written: membw.cpp's alloc_array and
//     fill_kernel);
//   * driver: mbw's loop (memcpy in the calling thread, gettimeofday before and after) against
//     plumb's harness (a pinned worker started and awaited through two std::barrier, as membw.cpp's
//     Team does), timed from the calling thread (plumb before this comparison) or by the worker
//     around its memcpy (plumb now).
// Each reports MiB/s in mbw's unit (256 MiB / seconds of one copy). And why `membw.triad.1t` can read
// below `membw.copy.1t`: plumb's triad (a = b + s*c, counted as 3 x 256 MiB, STREAM's convention)
// with ordinary stores, which read each destination line before writing it, against the same loop
// with non-temporal stores, which glibc's memcpy uses for copies this large; reported in GB/s
// (10^9 bytes, STREAM's count). docs/performance-bench.md has the figures.
// Run: build/release/bench/membw_loops_bench [--benchmark_repetitions=5]
#include <benchmark/benchmark.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/time.h>

#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

constexpr std::size_t kBytes = std::size_t{256} << 20;
constexpr std::size_t kHuge = std::size_t{2} << 20;

void pin_here(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set);
}

// One pair of arrays, allocated and written the way one of the two tools does it.
class Arrays {
 public:
  explicit Arrays(bool mbw_style) : mbw_(mbw_style) {
    for (int i = 0; i < 2; ++i) {
      if (mbw_) {
        auto* a = static_cast<long*>(std::calloc(kBytes / sizeof(long), sizeof(long)));
        if (a != nullptr) {
          for (std::size_t t = 0; t < kBytes / sizeof(long); ++t) a[t] = 0xaa;  // mbw's make_array
        }
        ptr_[i] = a;
      } else {
        void* m = ::mmap(nullptr, kBytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) continue;
        map_[i] = m;
        auto* a = static_cast<double*>(m) + (kHuge - reinterpret_cast<std::uintptr_t>(m) % kHuge) % kHuge / sizeof(double);
        ::madvise(a, kBytes, MADV_HUGEPAGE);
        for (std::size_t t = 0; t < kBytes / sizeof(double); ++t) a[t] = 1.0;
        ptr_[i] = a;
      }
    }
    if (ok()) std::memcpy(dst(), src(), kBytes);  // one untimed copy: both tools warm up first
  }
  ~Arrays() {
    for (int i = 0; i < 2; ++i) {
      if (mbw_) {
        std::free(ptr_[i]);
      } else if (map_[i] != nullptr) {
        ::munmap(map_[i], kBytes + kHuge);
      }
    }
  }
  Arrays(const Arrays&) = delete;
  Arrays& operator=(const Arrays&) = delete;
  [[nodiscard]] bool ok() const { return ptr_[0] != nullptr && ptr_[1] != nullptr; }
  [[nodiscard]] void* dst() const { return ptr_[0]; }
  [[nodiscard]] const void* src() const { return ptr_[1]; }

 private:
  bool mbw_;
  void* ptr_[2] = {nullptr, nullptr};
  void* map_[2] = {nullptr, nullptr};
};

double seconds_since(const timeval& t0) {
  timeval t1{};
  ::gettimeofday(&t1, nullptr);
  return static_cast<double>(t1.tv_sec - t0.tv_sec) + static_cast<double>(t1.tv_usec - t0.tv_usec) / 1e6;
}

void report(benchmark::State& state) {
  state.counters["MiB/s"] = benchmark::Counter(static_cast<double>(kBytes >> 20), benchmark::Counter::kIsIterationInvariantRate);
}

// mbw's loop: the copy in the calling thread, timed with gettimeofday around it.
void BM_MbwLoop(benchmark::State& state) {
  const int cpu = static_cast<int>(state.range(0));
  pin_here(cpu);
  Arrays arr(state.range(1) != 0);
  if (!arr.ok()) {
    state.SkipWithError("out of memory");
    return;
  }
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores): Google Benchmark's loop
    timeval t0{};
    ::gettimeofday(&t0, nullptr);
    std::memcpy(arr.dst(), arr.src(), kBytes);
    state.SetIterationTime(seconds_since(t0));
  }
  report(state);
}

// plumb's harness: a pinned worker driven through two barriers; range(2) 0: timed by the caller
// around both barriers, 1: timed by the worker around its copy.
void BM_PlumbHarness(benchmark::State& state) {
  const int cpu = static_cast<int>(state.range(0));
  Arrays arr(state.range(1) != 0);
  if (!arr.ok()) {
    state.SkipWithError("out of memory");
    return;
  }
  const bool worker_timed = state.range(2) != 0;
  std::barrier<> start(2), end(2);
  bool quit = false;
  double inner = 0;
  std::thread worker([&] {
    pin_here(cpu);
    for (;;) {
      start.arrive_and_wait();
      if (quit) return;
      auto t0 = std::chrono::steady_clock::now();
      std::memcpy(arr.dst(), arr.src(), kBytes);
      inner = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      end.arrive_and_wait();
    }
  });
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores): Google Benchmark's loop
    auto t0 = std::chrono::steady_clock::now();
    start.arrive_and_wait();
    end.arrive_and_wait();
    double outer = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(worker_timed ? inner : outer);
  }
  quit = true;
  start.arrive_and_wait();
  worker.join();
  report(state);
}

// Three arrays allocated as plumb's membw does (2 MiB-aligned, MADV_HUGEPAGE, written).
struct TriadArrays {
  TriadArrays() {
    for (auto& m : map) {
      m = ::mmap(nullptr, kBytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED) m = nullptr;
    }
    for (int i = 0; i < 3; ++i) {
      if (map[i] == nullptr) continue;
      auto* a = static_cast<double*>(map[i]) + (kHuge - reinterpret_cast<std::uintptr_t>(map[i]) % kHuge) % kHuge / sizeof(double);
      ::madvise(a, kBytes, MADV_HUGEPAGE);
      for (std::size_t t = 0; t < kBytes / sizeof(double); ++t) a[t] = 1.0 + i;
      arr[i] = a;
    }
  }
  ~TriadArrays() {
    for (auto* m : map) {
      if (m != nullptr) ::munmap(m, kBytes + kHuge);
    }
  }
  TriadArrays(const TriadArrays&) = delete;
  TriadArrays& operator=(const TriadArrays&) = delete;
  [[nodiscard]] bool ok() const { return arr[0] != nullptr && arr[1] != nullptr && arr[2] != nullptr; }
  void* map[3] = {nullptr, nullptr, nullptr};
  double* arr[3] = {nullptr, nullptr, nullptr};
};

// plumb's triad kernel (membw.cpp), ordinary stores.
__attribute__((noinline)) void triad_stored(double* __restrict a, const double* __restrict b,
                                            const double* __restrict c, std::size_t n, double s) {
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

#if defined(__SSE2__)
// The same with non-temporal stores (MOVNTPD): no read of the destination before the write.
__attribute__((noinline)) void triad_streamed(double* __restrict a, const double* __restrict b,
                                              const double* __restrict c, std::size_t n, double s) {
  const __m128d sv = _mm_set1_pd(s);
  for (std::size_t i = 0; i + 1 < n; i += 2) {
    _mm_stream_pd(a + i, _mm_add_pd(_mm_load_pd(b + i), _mm_mul_pd(sv, _mm_load_pd(c + i))));
  }
  _mm_sfence();
}
#endif

// range(0): CPU; range(1): 0 ordinary stores (plumb), 1 non-temporal stores.
void BM_Triad(benchmark::State& state) {
  pin_here(static_cast<int>(state.range(0)));
  const bool streamed = state.range(1) != 0;
#if !defined(__SSE2__)
  if (streamed) {
    state.SkipWithError("non-temporal stores need SSE2");
    return;
  }
#endif
  TriadArrays t;
  if (!t.ok()) {
    state.SkipWithError("out of memory");
    return;
  }
  const std::size_t n = kBytes / sizeof(double);
  auto run = [&] {
#if defined(__SSE2__)
    if (streamed) {
      triad_streamed(t.arr[0], t.arr[1], t.arr[2], n, 3.0);
      return;
    }
#endif
    triad_stored(t.arr[0], t.arr[1], t.arr[2], n, 3.0);
  };
  run();  // warm-up
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores): Google Benchmark's loop
    auto t0 = std::chrono::steady_clock::now();
    run();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  benchmark::DoNotOptimize(t.arr[0][n / 2]);
  state.counters["GB/s"] = benchmark::Counter(3.0 * static_cast<double>(kBytes) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// Args: CPU, mbw-style allocation (1) or plumb's (0)[, worker-timed].
BENCHMARK(BM_MbwLoop)->ArgsProduct({{0}, {1, 0}})->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PlumbHarness)->ArgsProduct({{0}, {1, 0}, {0, 1}})->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
// Args: CPU, ordinary (0) or non-temporal (1) stores.
BENCHMARK(BM_Triad)->ArgsProduct({{0}, {0, 1}})->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
