// Time intervals (µs) and the set operations the step breakdown needs: union, clipped length,
// intersection of two unions. HTA's convention: touching intervals merge.
#pragma once

#include <vector>

namespace plumb::trace {

struct Interval {
  double begin = 0;
  double end = 0;
};

// Sorts and merges in place; a new interval starts only when begin > the running end, so
// intervals that touch merge (HTA's merge_kernel_intervals).
void merge_in_place(std::vector<Interval>& v);
// Σ lengths of a merged list.
double total_length(const std::vector<Interval>& merged);
// Length of merged ∩ [begin, end).
double clipped_length(const std::vector<Interval>& merged, double begin, double end);
// Intersection of two merged lists (itself merged).
std::vector<Interval> intersect(const std::vector<Interval>& a, const std::vector<Interval>& b);

}  // namespace plumb::trace
