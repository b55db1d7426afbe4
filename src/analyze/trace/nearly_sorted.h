// Stable sorting for the trace reader's record arrays, which arrive almost in order: the profiler
// writes each thread's and each stream's events mostly by time, with two kinds of exceptions:
// neighbours swapped (a zero-length op written before the op that starts at the same microsecond
// and encloses it) and a few records far behind (an enclosing op written after everything it
// contains, a buffer flushed late). Three passes, each moving a record only past records that
// compare greater, so equal records keep their input order and the result is std::stable_sort's:
//   1. insertion, moving each record back at most kLocal places (fixes the neighbours);
//   2. the records still out of place (each one smaller than the last in-order record) are lifted
//      out, sorted apart and merged back: O(n + k log k) for k of them;
//   3. if more than about n/16 are out of place (the input is far from sorted after all), a natural
//      merge sort instead: ascending runs merged pairwise, O(n log r) for r runs.
// Linear for the usual trace, n log n at worst; one buffer of at most n records.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "analyze/trace/pod_vector.h"

namespace plumb::trace {

namespace detail {

// Natural merge sort of a[0, n): the ascending runs merged pairwise (std::merge is stable).
template <class T, class Cmp>
void natural_merge_sort(T* a, std::size_t n, Cmp cmp) {
  std::vector<std::size_t> bounds{0};  // run starts, then n
  for (std::size_t i = 1; i < n; ++i) {
    if (cmp(a[i], a[i - 1])) bounds.push_back(i);
  }
  if (bounds.size() == 1) return;
  bounds.push_back(n);
  PodVector<T> buf;  // every element is written by the first round of merges before it is read
  buf.reserve(n);
  T* src = a;
  T* dst = buf.data();
  std::vector<std::size_t> next;
  while (bounds.size() > 2) {
    next.assign(1, 0);
    std::size_t r = 0;
    for (; r + 2 < bounds.size(); r += 2) {
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

}  // namespace detail

template <class T, class Cmp>
void sort_nearly_sorted(T* a, std::size_t n, Cmp cmp) {
  if (n < 2) return;
  // 1. Local insertion.
  constexpr std::size_t kLocal = 16;
  bool sorted = true;
  for (std::size_t i = 1; i < n; ++i) {
    if (!cmp(a[i], a[i - 1])) continue;
    T v = a[i];
    std::size_t j = i;
    do {
      a[j] = a[j - 1];
      --j;
    } while (j > 0 && i - j < kLocal && cmp(v, a[j - 1]));
    a[j] = v;
    if (j > 0 && cmp(v, a[j - 1])) sorted = false;
  }
  if (sorted) return;
  // 2. Lift out the records smaller than the last in-order one; the rest close up at the front.
  const std::size_t max_lifted = n / 16 + 64;
  std::vector<std::pair<std::size_t, T>> lifted;  // position, record
  std::size_t k = 0;
  std::size_t i = 0;
  for (; i < n; ++i) {
    if (k == 0 || !cmp(a[i], a[k - 1])) {
      a[k++] = a[i];
      continue;
    }
    if (lifted.size() == max_lifted) break;
    lifted.emplace_back(i, a[i]);
  }
  if (i < n) {
    // 3. Far from sorted: put [0, i) back in its order, then the natural merge sort.
    std::size_t kk = k;
    for (std::size_t pos = i; pos-- > 0;) {
      if (!lifted.empty() && lifted.back().first == pos) {
        a[pos] = lifted.back().second;
        lifted.pop_back();
      } else {
        a[pos] = a[--kk];
      }
    }
    detail::natural_merge_sort(a, n, cmp);
    return;
  }
  std::stable_sort(lifted.begin(), lifted.end(), [&](const auto& x, const auto& y) { return cmp(x.second, y.second); });
  // Merge from the back. Of two equal records the one from the later position goes last; the
  // in-order records' positions are the positions not lifted, in order.
  std::vector<std::size_t> lpos;
  lpos.reserve(lifted.size());
  for (const auto& x : lifted) lpos.push_back(x.first);
  std::sort(lpos.begin(), lpos.end());
  std::size_t kpos = n;
  std::size_t taken = lpos.size();
  auto prev_kept_position = [&]() {
    --kpos;
    while (taken > 0 && lpos[taken - 1] == kpos) {
      --taken;
      --kpos;
    }
    return kpos;
  };
  std::size_t kp = k > 0 ? prev_kept_position() : 0;
  std::size_t out = n;
  std::size_t j = lifted.size();
  while (j > 0) {
    const auto& l = lifted[j - 1];
    bool take_lifted = k == 0 || cmp(a[k - 1], l.second) || (!cmp(l.second, a[k - 1]) && l.first > kp);
    if (take_lifted) {
      a[--out] = l.second;
      --j;
    } else {
      a[--out] = a[--k];
      if (k > 0) kp = prev_kept_position();
    }
  }
  // a[0, k) is in place (out == k).
}

}  // namespace plumb::trace
