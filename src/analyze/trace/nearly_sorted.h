// Stable sorting for the trace reader's record arrays, which arrive almost in order: the profiler
// writes each thread's and each stream's events mostly by time, with few places where the order
// breaks: mostly neighbours swapped (a zero-length op written before the op that starts at the same
// microsecond and encloses it), sometimes a record far away (a buffer flushed late). First each
// record is moved back by insertion, at most kLocal places; what is still out of order is left to a
// natural merge sort (the ascending runs merged pairwise, O(n log r) for r runs, one buffer of n
// records). Linear for the usual trace, n log n at worst, and the same order as std::stable_sort:
// both passes move a record only past records that compare greater, so equal ones keep their order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace plumb::trace {

template <class T, class Cmp>
void sort_nearly_sorted(T* a, std::size_t n, Cmp cmp) {
  if (n < 2) return;
  constexpr std::size_t kLocal = 16;
  for (std::size_t i = 1; i < n; ++i) {
    if (!cmp(a[i], a[i - 1])) continue;
    T v = a[i];
    std::size_t j = i;
    do {
      a[j] = a[j - 1];
      --j;
    } while (j > 0 && i - j < kLocal && cmp(v, a[j - 1]));
    a[j] = v;
  }
  std::vector<std::size_t> bounds{0};  // run starts, then n
  for (std::size_t i = 1; i < n; ++i) {
    if (cmp(a[i], a[i - 1])) bounds.push_back(i);
  }
  if (bounds.size() == 1) return;
  bounds.push_back(n);
  std::vector<T> buf(n);
  T* src = a;
  T* dst = buf.data();
  std::vector<std::size_t> next;
  while (bounds.size() > 2) {
    next.assign(1, 0);
    std::size_t r = 0;
    for (; r + 2 < bounds.size(); r += 2) {  // std::merge is stable: the first run wins ties
      std::merge(src + bounds[r], src + bounds[r + 1], src + bounds[r + 1], src + bounds[r + 2], dst + bounds[r], cmp);
      next.push_back(bounds[r + 2]);
    }
    if (r + 1 < bounds.size()) {  // an odd run out: carried over
      std::copy(src + bounds[r], src + bounds[r + 1], dst + bounds[r]);
      next.push_back(bounds[r + 1]);
    }
    bounds.swap(next);
    std::swap(src, dst);
  }
  if (src != a) std::copy(src, src + n, a);
}

}  // namespace plumb::trace
