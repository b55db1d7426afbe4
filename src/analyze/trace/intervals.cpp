// Interval union and clipping for the per-step breakdown.
#include "analyze/trace/intervals.h"

#include <algorithm>

#include "analyze/trace/nearly_sorted.h"

namespace plumb::trace {

void merge_in_place(std::vector<Interval>& v) {
  if (v.empty()) return;
  sort_nearly_sorted(v.data(), v.size(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::size_t out = 0;
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (v[i].begin > v[out].end) {
      v[++out] = v[i];
    } else if (v[i].end > v[out].end) {
      v[out].end = v[i].end;
    }
  }
  v.resize(out + 1);
}

double total_length(const std::vector<Interval>& merged) {
  double t = 0;
  for (const auto& i : merged) t += i.end - i.begin;
  return t;
}

double clipped_length(const std::vector<Interval>& merged, double begin, double end) {
  if (merged.empty() || end <= begin) return 0;
  // First interval that ends after `begin`.
  auto it = std::lower_bound(merged.begin(), merged.end(), begin,
                             [](const Interval& i, double t) { return i.end <= t; });
  double t = 0;
  for (; it != merged.end() && it->begin < end; ++it) {
    double b = std::max(it->begin, begin);
    double e = std::min(it->end, end);
    if (e > b) t += e - b;
  }
  return t;
}

std::vector<Interval> intersect(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    double lo = std::max(a[i].begin, b[j].begin);
    double hi = std::min(a[i].end, b[j].end);
    if (hi > lo) out.push_back({lo, hi});
    if (a[i].end < b[j].end) ++i; else ++j;
  }
  return out;
}

}  // namespace plumb::trace
