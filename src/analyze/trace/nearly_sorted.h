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
//      merge sort instead: ascending runs merged pairwise in place, each merge moving only the
//      records where its two runs overlap: O(n log r) for r runs at worst, near linear when runs
//      barely overlap (sections written one after the other, a long trace's repeated steps).
// Linear for the usual trace, n log n at worst; one buffer of at most n records.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "analyze/trace/pod_vector.h"

namespace plumb::trace {

namespace detail {

// Merges the adjacent sorted ranges a[lo, mid) and a[mid, hi) in place, stably, with `buf` for the
// part that overlaps: the left range's records not greater than the right's first stay where they
// are, and so do the right range's records not less than the left's last. Ranges that do not
// overlap at all (time-shifted copies, sections written one after the other) cost two comparisons.
template <class T, class Cmp>
void merge_adjacent(T* a, std::size_t lo, std::size_t mid, std::size_t hi, PodVector<T>& buf, Cmp cmp) {
  if (lo == mid || mid == hi || !cmp(a[mid], a[mid - 1])) return;
  T* from = std::upper_bound(a + lo, a + mid, a[mid], cmp);     // first left record after the right's first
  T* to = std::lower_bound(a + mid, a + hi, a[mid - 1], cmp);    // first right record not before the left's last
  buf.clear();
  buf.append(from, static_cast<std::size_t>(a + mid - from));
  // Forward, the left record first on ties; the write position never passes the right range's read
  // position, and once the left records are all out the right's rest is already in place.
  const T* l = buf.begin();
  T* r = a + mid;
  T* out = from;
  while (l != buf.end() && r != to) *out++ = cmp(*r, *l) ? *r++ : *l++;
  while (l != buf.end()) *out++ = *l++;
}

// Natural merge sort of a[0, n): the ascending runs merged pairwise, each merge in place and only
// over the overlap of its two runs (merge_adjacent), so equal records keep their input order.
template <class T, class Cmp>
void natural_merge_sort(T* a, std::size_t n, Cmp cmp) {
  std::vector<std::size_t> bounds{0};  // run starts, then n
  for (std::size_t i = 1; i < n; ++i) {
    if (cmp(a[i], a[i - 1])) bounds.push_back(i);
  }
  if (bounds.size() == 1) return;
  bounds.push_back(n);
  PodVector<T> buf;
  std::vector<std::size_t> next;
  while (bounds.size() > 2) {
    next.assign(1, 0);
    std::size_t r = 0;
    for (; r + 2 < bounds.size(); r += 2) {
      merge_adjacent(a, bounds[r], bounds[r + 1], bounds[r + 2], buf, cmp);
      next.push_back(bounds[r + 2]);
    }
    if (r + 1 < bounds.size()) next.push_back(bounds[r + 1]);  // an odd run out: carried over
    bounds.swap(next);
  }
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
