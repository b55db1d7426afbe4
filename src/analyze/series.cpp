// Time-series detectors for `plumb watch`: small, pure, tested on synthetic series.
#include "analyze/series.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace plumb::watch {

double mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  p = std::clamp(p, 0.0, 100.0);
  double pos = p / 100.0 * static_cast<double>(v.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(pos));
  std::size_t hi = std::min(lo + 1, v.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

double median(std::vector<double> v) { return percentile(std::move(v), 50); }

double share_at_least(const std::vector<double>& v, double threshold) {
  if (v.empty()) return 0;
  auto n = std::count_if(v.begin(), v.end(), [&](double x) { return x >= threshold; });
  return static_cast<double>(n) / static_cast<double>(v.size());
}

Sawtooth find_sawtooth(const std::vector<double>& t_s, const std::vector<double>& v, double min_amplitude) {
  Sawtooth out;
  std::size_t n = std::min(t_s.size(), v.size());
  if (n < 3 || !(min_amplitude > 0)) return out;
  enum class Dir { unknown, up, down } dir = Dir::unknown;
  double hi = v[0], lo = v[0];
  std::size_t hi_i = 0;
  std::vector<double> peak_times, drops;
  double pending_peak = 0;
  bool have_pending = false;
  for (std::size_t i = 1; i < n; ++i) {
    double x = v[i];
    if (dir == Dir::down) {
      if (x < lo) {
        lo = x;
      } else if (x - lo >= min_amplitude) {
        // The trough is confirmed by a large rise: the drop is complete.
        drops.push_back(pending_peak - lo);
        have_pending = false;
        dir = Dir::up;
        hi = x;
        hi_i = i;
      }
      continue;
    }
    if (x > hi) { hi = x; hi_i = i; }
    if (x < lo) lo = x;
    if (hi - x >= min_amplitude) {
      // A peak confirmed by a large drop.
      peak_times.push_back(t_s[hi_i]);
      pending_peak = hi;
      have_pending = true;
      dir = Dir::down;
      lo = x;
    } else if (dir == Dir::unknown && x - lo >= min_amplitude) {
      dir = Dir::up;
    }
  }
  if (have_pending) drops.push_back(pending_peak - lo);
  out.drops = static_cast<int>(drops.size());
  out.amplitude = median(drops);
  if (peak_times.size() >= 2) {
    std::vector<double> gaps;
    for (std::size_t i = 1; i < peak_times.size(); ++i) gaps.push_back(peak_times[i] - peak_times[i - 1]);
    out.period_s = median(gaps);
  }
  return out;
}

std::optional<Outlier> find_outlier(const std::vector<double>& values, double ratio, double floor) {
  if (values.size() < 2) return std::nullopt;
  std::optional<Outlier> best;
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::vector<double> peers;
    for (std::size_t j = 0; j < values.size(); ++j) {
      if (j != i) peers.push_back(values[j]);
    }
    double pm = median(peers);
    double v = values[i];
    if (v < floor) continue;
    double r = pm > 0 ? v / pm : v / std::max(floor, 1e-9);
    if (r < ratio) continue;
    if (!best || r > best->ratio) best = Outlier{i, v, pm, r};
  }
  return best;
}

std::vector<Episode> find_episodes(const std::vector<double>& t_s, const std::vector<std::uint64_t>& bits) {
  std::vector<Episode> out;
  std::size_t n = std::min(t_s.size(), bits.size());
  bool open = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (bits[i] != 0) {
      if (!open) {
        out.push_back({t_s[i], t_s[i], 0});
        open = true;
      }
      out.back().end_s = t_s[i];
      out.back().reasons |= bits[i];
    } else {
      open = false;
    }
  }
  return out;
}

}  // namespace plumb::watch
