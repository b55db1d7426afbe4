// The record storage of the trace reader: PodVector (heap, then its own growing mapping) and the
// stable near-linear sort the breakdown uses on the almost-ordered record arrays.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <random>
#include <string>
#include <vector>

#include "analyze/trace/builder.h"
#include "analyze/trace/nearly_sorted.h"
#include "analyze/trace/pod_vector.h"
#include "analyze/trace/records.h"
#include "analyze/trace/search.h"

namespace plumb::trace {
namespace {

struct Rec {
  int key = 0;
  int id = 0;
};

TEST(PodVector, GrowsFromTheHeapIntoItsOwnMappingAndKeepsEveryElement) {
  PodVector<Rec> v;
  EXPECT_TRUE(v.empty());
  const int n = 3'000'000;  // 24 MB: crosses the 1 MiB switch to a mapping and grows it by mremap
  for (int i = 0; i < n; ++i) v.push_back({i, -i});
  ASSERT_EQ(v.size(), static_cast<std::size_t>(n));
  EXPECT_GE(v.capacity(), v.size());
  for (int i = 0; i < n; i += 9973) {
    EXPECT_EQ(v[static_cast<std::size_t>(i)].key, i);
    EXPECT_EQ(v[static_cast<std::size_t>(i)].id, -i);
  }
  EXPECT_EQ(v.back().key, n - 1);
  PodVector<Rec> copy = v;
  PodVector<Rec> moved = std::move(v);
  EXPECT_TRUE(v.empty());  // NOLINT(bugprone-use-after-move): a moved-from PodVector is empty
  ASSERT_EQ(copy.size(), moved.size());
  EXPECT_TRUE(std::equal(copy.begin(), copy.end(), moved.begin(),
                         [](const Rec& a, const Rec& b) { return a.key == b.key && a.id == b.id; }));
  copy.clear();
  EXPECT_TRUE(copy.empty());
  copy.emplace_back(7, 8);
  EXPECT_EQ(copy[0].key, 7);
}

// A mapping's pages are made present a step at a time (capacity() is where they are): reserve,
// append and push_back across the steps, the move from the heap and the mremap keep every element.
TEST(PodVector, ReserveAndAppendAcrossPopulatedSteps) {
  PodVector<Rec> v;
  for (int i = 0; i < 1000; ++i) v.push_back({i, 1});
  v.reserve(200'000);  // 1.6 MB: from the heap into a mapping with elements in it
  EXPECT_GE(v.capacity(), 200'000u);
  std::vector<Rec> block(70'001);
  int next = 1000;
  for (int round = 0; round < 40; ++round) {
    for (auto& r : block) r = {next++, 2};
    v.append(block.data(), block.size() - static_cast<std::size_t>(round * 997));
    next -= round * 997;
    v.push_back({next++, 3});
  }
  ASSERT_EQ(v.size(), static_cast<std::size_t>(next));
  EXPECT_GE(v.capacity(), v.size());
  for (int i = 0; i < next; ++i) ASSERT_EQ(v[static_cast<std::size_t>(i)].key, i) << i;
}

// A heap block is made present a step (64 KiB) at a time too: a block that doubled keeps its second
// half out of memory until it is filled, and push_back, append and reserve across the steps keep
// every element.
TEST(PodVector, HeapBlocksFillAStepAtATime) {
  PodVector<Rec> v;  // 8-byte records: a heap block up to 1 MiB, 131,072 of them
  for (int i = 0; i < 33'000; ++i) v.push_back({i, 1});
  EXPECT_GE(v.capacity(), v.size());
  EXPECT_LE(v.capacity(), 33'000u + 8192u + 512u) << "the whole doubled block (65,536) was made present";
  std::vector<Rec> block(20'000);
  int next = 33'000;
  for (auto& r : block) r = {next++, 2};
  v.append(block.data(), block.size());
  v.reserve(60'000);
  EXPECT_GE(v.capacity(), 60'000u);
  for (int i = next; i < 61'000; ++i) v.push_back({i, 3});
  ASSERT_EQ(v.size(), 61'000u);
  for (int i = 0; i < 61'000; ++i) ASSERT_EQ(v[static_cast<std::size_t>(i)].key, i) << i;
  PodVector<Rec> moved = std::move(v);
  moved.push_back({61'000, 4});
  EXPECT_EQ(moved.size(), 61'001u);
  EXPECT_EQ(moved.back().key, 61'000);
}

// The VmFlags of the mapping that holds `p` in /proc/self/smaps ("" when none holds it).
[[maybe_unused]] std::string vm_flags_of(const void* p) {  // unused where every array stays on the heap
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  std::string line;
  while (std::getline(smaps, line)) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(' ') != std::string::npos &&
        line.find(':') > line.find(' ')) {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line.substr(8);
  }
  return "";
}

// A mapping asks for transparent huge pages (MADV_HUGEPAGE: "hg" in its VmFlags) unless the array
// was told to take small pages before it grew into one.
TEST(PodVector, AsksForHugePagesUnlessToldSmall) {
#if defined(PLUMB_POD_VECTOR_HEAP_ONLY)
  GTEST_SKIP() << "sanitizer build: PodVector keeps every array on the heap";
#else
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    GTEST_SKIP() << "this kernel has no transparent huge pages (no /sys/kernel/mm/transparent_hugepage)";
  }
  pod_vector_huge_pages = true;
  PodVector<Rec> huge, small;
  small.small_pages();
  EXPECT_TRUE(huge.huge_pages());
  EXPECT_FALSE(small.huge_pages());
  for (int i = 0; i < 600'000; ++i) {  // 4.8 MB each: past the 1 MiB switch to a mapping
    huge.push_back({i, 0});
    small.push_back({i, 0});
  }
  const std::string hf = vm_flags_of(huge.data()), sf = vm_flags_of(small.data());
  ASSERT_FALSE(hf.empty()) << "no mapping holds the array in /proc/self/smaps";
  ASSERT_FALSE(sf.empty()) << "no mapping holds the array in /proc/self/smaps";
  EXPECT_NE(hf.find(" hg"), std::string::npos) << hf;
  EXPECT_EQ(sf.find(" hg"), std::string::npos) << sf;
  PodVector<Rec> moved = std::move(small);  // the choice moves with the array
  EXPECT_FALSE(moved.huge_pages());
  pod_vector_huge_pages = false;  // as `plumb trace` sets it where free memory is reported to a host
  PodVector<Rec> later;
  pod_vector_huge_pages = true;
  EXPECT_FALSE(later.huge_pages());
  for (int i = 0; i < 600'000; ++i) later.push_back({i, 0});
  const std::string lf = vm_flags_of(later.data());
  ASSERT_FALSE(lf.empty());
  EXPECT_EQ(lf.find(" hg"), std::string::npos) << lf;
#endif
}

// TraceRecords::small_pages reaches every record array, those of threads the builder meets later
// included (the records of a part read on its own thread).
TEST(TraceRecordsStorage, SmallPagesReachEveryArrayAndThreadsSeenLater) {
  TraceRecords rec;
  rec.add_thread();
  rec.small_pages();
  for (const auto* v : {&rec.dataloader, &rec.optimizer, &rec.cpu_copy}) EXPECT_FALSE(v->huge_pages());
  EXPECT_FALSE(rec.uncorrelated_launches.huge_pages());
  EXPECT_FALSE(rec.gpu.huge_pages());
  EXPECT_FALSE(rec.corr.huge_pages());
  EXPECT_FALSE(rec.syncs.huge_pages());
  EXPECT_FALSE(rec.cpu[0].huge_pages());
  EXPECT_FALSE(rec.runtime[0].huge_pages());
  RecordBuilder b("t.json", rec);
  RawEvent e;
  e.ph = 'X';
  e.cat = Cat::cpu_op;
  e.name = "aten::add";
  e.has_name = e.has_ts = e.has_dur = true;
  e.ts = 10;
  e.dur = 5;
  e.pid.num = 7;
  e.tid.num = 8;
  ASSERT_TRUE(b.on_event(e));
  ASSERT_EQ(rec.cpu.size(), 2u);
  EXPECT_FALSE(rec.cpu[1].huge_pages());
  EXPECT_FALSE(rec.runtime[1].huge_pages());
  TraceRecords whole;  // the first part's records (and a one-thread run's) keep huge pages
  RecordBuilder w("t.json", whole);
  ASSERT_TRUE(w.on_event(e));
  ASSERT_EQ(whole.cpu.size(), 1u);
  EXPECT_TRUE(whole.cpu[0].huge_pages());
  EXPECT_TRUE(whole.gpu.huge_pages());
}

// Address space reserved ahead is advice: under a limit on it (RLIMIT_AS, as batch systems set)
// an array takes what it needs instead, and keeps every element.
TEST(PodVectorDeathTest, GrowsUnderAnAddressSpaceLimit) {
#if defined(PLUMB_POD_VECTOR_HEAP_ONLY)
  GTEST_SKIP() << "sanitizer build: PodVector keeps every array on the heap, nothing is reserved";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::ifstream status("/proc/self/status");
        std::string line;
        std::size_t vm_kb = 0;
        while (std::getline(status, line)) {
          if (line.rfind("VmSize:", 0) == 0) vm_kb = std::stoul(line.substr(7));
        }
        // Room for the array (64 MB) and a little more, not for eight times its growing sizes.
        rlimit lim{};
        lim.rlim_cur = lim.rlim_max = (vm_kb << 10) + (std::size_t{100} << 20);
        if (vm_kb == 0 || ::setrlimit(RLIMIT_AS, &lim) != 0) std::_Exit(2);
        PodVector<Rec> v;
        const int n = 8'000'000;  // 64 MB
        for (int i = 0; i < n; ++i) v.push_back({i, 1});
        for (int i = 0; i < n; ++i) {
          if (v[static_cast<std::size_t>(i)].key != i) std::_Exit(3);
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
#endif
}

// Against std::stable_sort on inputs shaped like traces (in order with neighbours swapped, a few
// records far behind or far ahead, far from sorted) and on random ones with many ties: covers the
// local insertion, the lift-and-merge path and the natural merge sort fallback.
TEST(NearlySorted, SameOrderAsStableSort) {
  std::mt19937 rng(42);
  auto cmp = [](const Rec& a, const Rec& b) { return a.key < b.key; };
  for (int t = 0; t < 4000; ++t) {
    const int n = static_cast<int>(rng() % 300);
    std::vector<Rec> v(static_cast<std::size_t>(n));
    const int mode = t % 7;
    for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)].key = mode == 0 ? static_cast<int>(rng() % 10) : i / 2;
    if (mode == 1 && n > 1) {
      for (int s = 0; s < 3; ++s) std::swap(v[rng() % n], v[rng() % n]);
    }
    if (mode == 2) {
      for (int s = 0; s < n / 3 && n > 1; ++s) v[rng() % n].key = static_cast<int>(rng() % 50);
    }
    if (mode == 3 && n > 4) {  // an enclosing record written after what it encloses
      for (int s = 0; s < 4; ++s) v[rng() % n].key = -1;
    }
    if (mode == 4) std::reverse(v.begin(), v.end());
    if (mode == 5 && n > 4) {  // one record far ahead of its place, a few far behind
      v[0].key = 1'000'000;
      for (int s = 0; s < 3; ++s) v[rng() % n].key -= 30;
    }
    if (mode == 6) {  // blocks one after the other, each two interleaved sections, some overlapping the next block
      const int block = 1 + static_cast<int>(rng() % 40);
      for (int i = 0; i < n; ++i) {
        const int b = i / block, k = i % block;
        v[static_cast<std::size_t>(i)].key = b * 20 + (k % 2 == 0 ? k / 2 : (k / 2) * 3 % 25);
      }
    }
    for (std::size_t i = 0; i < v.size(); ++i) v[i].id = static_cast<int>(i);
    auto want = v;
    std::stable_sort(want.begin(), want.end(), cmp);
    auto merged = v;  // the natural merge sort alone, on every shape
    sort_nearly_sorted(v.data(), v.size(), cmp);
    detail::natural_merge_sort(merged.data(), merged.size(), cmp);
    for (std::size_t i = 0; i < v.size(); ++i) {
      ASSERT_EQ(v[i].key, want[i].key) << "case " << t << " index " << i;
      ASSERT_EQ(v[i].id, want[i].id) << "case " << t << " index " << i << " (ties must keep input order)";
      ASSERT_EQ(merged[i].id, want[i].id) << "case " << t << " index " << i << " (natural merge sort)";
    }
  }
}

// A trace read in parts has each part's records sorted on its own thread (sort_records) before the
// merge appends them in file order; sorting the appended arrays must then give exactly what sorting
// the whole does, ties included: ops that start together, correlation ids seen twice, records far
// out of place across the cut.
TEST(SortRecords, PartsSortedApartThenAppendedSortLikeTheWhole) {
  std::mt19937 rng(7);
  for (int t = 0; t < 300; ++t) {
    const std::size_t n = 1 + rng() % 400;
    TraceRecords whole;
    whole.add_thread();
    for (std::size_t i = 0; i < n; ++i) {
      CpuRec c;
      const std::size_t third = i / 3;  // ties: three records per start
      c.ts = static_cast<double>(third);
      if (t % 3 == 1 && rng() % 8 == 0) c.ts = static_cast<double>(rng() % (n / 3 + 1));  // out of place
      if (t % 3 == 2) c.ts = static_cast<double>(rng() % 20);                            // far from sorted
      c.end = c.ts + static_cast<double>(rng() % 4);
      c.name = static_cast<std::uint32_t>(i);  // tells equal records apart
      (i % 2 == 0 ? whole.cpu[0] : whole.runtime[0]).push_back(c);
      CorrRec k;
      k.correlation = t % 2 == 0 ? i / 2 : rng() % 50;
      k.ts = static_cast<double>(i);
      whole.corr.push_back(k);
    }
    const std::size_t cut_cpu = rng() % (whole.cpu[0].size() + 1), cut_rt = rng() % (whole.runtime[0].size() + 1);
    const std::size_t cut_corr = rng() % (whole.corr.size() + 1);
    TraceRecords first, second;
    first.add_thread();
    second.add_thread();
    first.cpu[0].append(whole.cpu[0].data(), cut_cpu);
    second.cpu[0].append(whole.cpu[0].data() + cut_cpu, whole.cpu[0].size() - cut_cpu);
    first.runtime[0].append(whole.runtime[0].data(), cut_rt);
    second.runtime[0].append(whole.runtime[0].data() + cut_rt, whole.runtime[0].size() - cut_rt);
    first.corr.append(whole.corr.data(), cut_corr);
    second.corr.append(whole.corr.data() + cut_corr, whole.corr.size() - cut_corr);
    sort_records(first);
    sort_records(second);
    first.cpu[0].append(second.cpu[0].data(), second.cpu[0].size());
    first.runtime[0].append(second.runtime[0].data(), second.runtime[0].size());
    first.corr.append(second.corr.data(), second.corr.size());
    sort_records(first);
    sort_records(whole);
    auto same_rows = [&](const PodVector<CpuRec>& a, const PodVector<CpuRec>& b, const char* what) {
      ASSERT_EQ(a.size(), b.size()) << what;
      for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a[i].ts, b[i].ts) << what << " case " << t << " index " << i;
        ASSERT_EQ(a[i].end, b[i].end) << what << " case " << t << " index " << i;
        ASSERT_EQ(a[i].name, b[i].name) << what << " case " << t << " index " << i << " (ties keep file order)";
      }
    };
    // In order: by start, the enclosing (longer) record first; correlation rows by id.
    auto nests = [](const CpuRec& a, const CpuRec& b) { return a.ts != b.ts ? a.ts < b.ts : a.end > b.end; };
    ASSERT_TRUE(std::is_sorted(whole.cpu[0].begin(), whole.cpu[0].end(), nests)) << "case " << t;
    ASSERT_TRUE(std::is_sorted(whole.runtime[0].begin(), whole.runtime[0].end(), nests)) << "case " << t;
    ASSERT_TRUE(std::is_sorted(whole.corr.begin(), whole.corr.end(),
                               [](const CorrRec& a, const CorrRec& b) { return a.id() < b.id(); }))
        << "case " << t;
    same_rows(first.cpu[0], whole.cpu[0], "CPU ops");
    same_rows(first.runtime[0], whole.runtime[0], "runtime calls");
    ASSERT_EQ(first.corr.size(), whole.corr.size());
    for (std::size_t i = 0; i < whole.corr.size(); ++i) {
      ASSERT_EQ(first.corr[i].id(), whole.corr[i].id()) << "case " << t << " index " << i;
      ASSERT_EQ(first.corr[i].ts, whole.corr[i].ts) << "case " << t << " index " << i << " (ties keep file order)";
    }
  }
}

// The merge hands each part's correlation rows over as an array of its own; looking an id up across
// them must answer as the one stably sorted array did: the first row with that id (an earlier part's
// before a later one's), and any row with it, for ids in rising, falling and random order, ids seen
// in several parts, outside every part, and parts left empty.
TEST(CorrLookup, PartsAnswerAsTheWholeSortedStably) {
  std::mt19937 rng(11);
  auto by_id = [](const CorrRec& a, const CorrRec& b) { return a.id() < b.id(); };
  for (int t = 0; t < 300; ++t) {
    const std::size_t n = rng() % 300;
    const std::int64_t ids = 1 + static_cast<std::int64_t>(rng() % 200);
    std::vector<CorrRec> whole;
    for (std::size_t i = 0; i < n; ++i) {
      CorrRec k;
      k.correlation = static_cast<std::uint64_t>(t % 2 == 0 ? static_cast<std::int64_t>(i) / 2 : static_cast<std::int64_t>(rng()) % ids);
      k.ts = static_cast<double>(i);  // tells rows apart
      k.launch = rng() % 3 != 0;
      whole.push_back(k);
    }
    const std::size_t n_parts = 1 + rng() % (t % 4 == 3 ? 60 : 5);  // a gzip trace is read in many parts
    std::vector<std::size_t> cuts{0};
    for (std::size_t p = 1; p < n_parts; ++p) cuts.push_back(rng() % (n + 1));
    cuts.push_back(n);
    std::sort(cuts.begin(), cuts.end());
    std::vector<PodVector<CorrRec>> parts(n_parts);
    for (std::size_t p = 0; p < n_parts; ++p) {
      parts[p].append(whole.data() + cuts[p], cuts[p + 1] - cuts[p]);
      std::stable_sort(parts[p].begin(), parts[p].end(), by_id);
    }
    std::stable_sort(whole.begin(), whole.end(), by_id);
    std::vector<const PodVector<CorrRec>*> ptrs;
    for (const auto& p : parts) ptrs.push_back(&p);
    CorrLookup lookup(ptrs);
    std::vector<std::int64_t> asks;
    for (std::int64_t id = -2; id < ids + static_cast<std::int64_t>(n) + 2; ++id) asks.push_back(id);
    if (t % 3 == 1) std::reverse(asks.begin(), asks.end());
    if (t % 3 == 2) std::shuffle(asks.begin(), asks.end(), rng);
    for (std::int64_t id : asks) {
      auto it = std::lower_bound(whole.begin(), whole.end(), id, [](const CorrRec& c, std::int64_t v) { return c.id() < v; });
      const CorrRec* got = lookup.first(id);
      if (it == whole.end() || it->id() != id) {
        ASSERT_EQ(got, nullptr) << "case " << t << " id " << id;
        continue;
      }
      ASSERT_NE(got, nullptr) << "case " << t << " id " << id;
      ASSERT_EQ(got->ts, it->ts) << "case " << t << " id " << id << " (the earlier part's row first)";
      for (double after : {-1.0, 50.0, 150.0}) {
        bool want = false;
        for (auto jt = it; jt != whole.end() && jt->id() == id; ++jt) want = want || jt->ts > after;
        ASSERT_EQ(lookup.any(id, [after](const CorrRec& c) { return c.ts > after; }), want) << "case " << t << " id " << id;
      }
    }
  }
}

// The search from a hint gives std::partition_point's answer whatever the hint: before, at or after
// the answer, at either end, on empty ranges and on runs of equal keys.
TEST(SearchFromHint, SameAsPartitionPoint) {
  std::mt19937 rng(7);
  for (int t = 0; t < 3000; ++t) {
    const std::size_t n = rng() % 200;
    std::vector<int> v(n);
    for (auto& x : v) x = static_cast<int>(rng() % (t % 3 == 0 ? 5 : 400));
    std::sort(v.begin(), v.end());
    const int key = static_cast<int>(rng() % 410) - 5;
    auto below = [key](int x) { return x < key; };
    auto want = std::partition_point(v.begin(), v.end(), below);
    for (std::size_t h = 0; h <= n + 1; h += 1 + (n / 23)) {
      auto hint = v.begin() + static_cast<long>(std::min(h, n));
      ASSERT_EQ(partition_point_from(v.begin(), v.end(), hint, below) - v.begin(), want - v.begin())
          << "case " << t << " hint " << h;
    }
  }
}

}  // namespace
}  // namespace plumb::trace
