// Pure time-series detectors behind the L2 watch findings: summary statistics, sawtooth
// (repeated large rises and drops), saturation share, imbalance across peers, episodes.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace plumb::watch {

double mean(const std::vector<double>& v);                    // 0 for an empty series
double percentile(std::vector<double> v, double p);            // linear interpolation, p in [0, 100]
double median(std::vector<double> v);
// Share (0..1) of the values >= threshold; 0 for an empty series.
double share_at_least(const std::vector<double>& v, double threshold);

// A sawtooth: the series rises by at least `min_amplitude` and then drops by at least as much,
// again and again. Turning points are found with hysteresis (a zigzag filter), so noise smaller
// than min_amplitude never counts as a cycle.
struct Sawtooth {
  int drops = 0;            // confirmed peak -> trough drops
  double amplitude = 0;     // median drop size
  double period_s = 0;      // median time between peaks (0 with a single peak)
};
Sawtooth find_sawtooth(const std::vector<double>& t_s, const std::vector<double>& v, double min_amplitude);

// The peer that stands out: its value is at least `ratio` times the median of the others and at
// least `floor`. Needs two or more values; the one with the largest ratio wins.
struct Outlier {
  std::size_t index = 0;
  double value = 0;
  double peers_median = 0;
  double ratio = 0;  // value / peers_median (value / floor when the peers are idle)
};
std::optional<Outlier> find_outlier(const std::vector<double>& values, double ratio, double floor);

// Runs of consecutive true flags, as [start, end] times; an episode still open at the end is closed there.
struct Episode {
  double start_s = 0;
  double end_s = 0;
  std::uint64_t reasons = 0;  // bits seen during the episode (for throttling)
};
std::vector<Episode> find_episodes(const std::vector<double>& t_s, const std::vector<std::uint64_t>& bits);

}  // namespace plumb::watch
