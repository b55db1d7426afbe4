// Binary search from a hint, for lookups that come in almost sorted order: the GPU rows ask for
// their launch call by correlation id (ids rise as kernels are launched), each CPU op for the step
// that holds it (ops come by start time). std::partition_point over a large array costs
// log2(n) cache misses per lookup; starting from the previous answer and widening the bracket
// 1, 2, 4... places costs O(log d) for an answer d places away, a few cache lines when d is small.
// The result is always std::partition_point's: the hint only changes where the search starts.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>

namespace plumb::trace {

// The first element in [first, last) for which pred is false, where pred is true on a prefix of the
// range (std::partition_point), searched outwards from `hint` (any position; clamped to the range).
template <class It, class Pred>
It partition_point_from(It first, It last, It hint, Pred pred) {
  if (hint < first) hint = first;
  if (hint > last) hint = last;
  using Diff = typename std::iterator_traits<It>::difference_type;
  Diff step = 1;
  if (hint != last && pred(*hint)) {
    // The answer lies after the hint: [lo, hi] brackets it.
    It lo = hint + 1;
    while (last - lo > step) {
      It probe = lo + step;
      if (!pred(*probe)) return std::partition_point(lo, probe, pred);
      lo = probe + 1;
      step *= 2;
    }
    return std::partition_point(lo, last, pred);
  }
  // The answer is the hint or before it.
  It hi = hint;
  while (hi - first > step) {
    It probe = hi - step;
    if (pred(*probe)) return std::partition_point(probe + 1, hi, pred);
    hi = probe;
    step *= 2;
  }
  return std::partition_point(first, hi, pred);
}

}  // namespace plumb::trace
