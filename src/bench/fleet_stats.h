// The numbers behind `plumb fleet`: robust statistics for bench outliers (median, MAD, modified
// z-score; Iglewicz and Hoaglin, "How to Detect and Handle Outliers", 1993) and the plan and
// verdict of the node-to-node network sweep (shifted ring, then suspects against known-good nodes).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "bench/stats.h"  // median_of
#include "core/facts/fleet.h"

namespace plumb {

// Median absolute deviation from `med` (unscaled).
double mad_of(const std::vector<double>& v, double med);

struct OutlierRule {
  double below_fraction = 0.10;  // at least this far on the bad side of the median...
  double z = -3.5;               // ...and a modified z-score at or below this (bad side negative)
  double mad_floor_fraction = 0.01;  // MAD floored at this share of |median|
  int min_nodes = 5;             // fewer nodes: no statistical verdict (absolute floors only)
};

struct Outlier {
  std::string host;
  double value = 0;
  double median = 0;
  double deviation = 0;  // signed fraction from the median, bad side negative (-0.25: 25 % worse)
  double z = 0;          // modified z-score, bad side negative
};

struct MetricSummary {
  int nodes = 0;
  double median = 0, mad = 0, min = 0, max = 0;
};
MetricSummary summarize(const FleetMetric& m);

// Nodes of `m` that are outliers on the bad side (lower when higher is better, higher otherwise).
// Empty when fewer than rule.min_nodes nodes measured it.
std::vector<Outlier> find_outliers(const FleetMetric& m, const OutlierRule& rule);

// Pairs of ranks measured together in rounds: no rank is in two pairs of one round.
using RankPair = std::pair<int, int>;
std::vector<std::vector<RankPair>> schedule_rounds(const std::vector<RankPair>& pairs);
// The first pass: each rank with its successor (a shifted ring); one pair for two ranks.
std::vector<RankPair> ring_pairs(int n);

// A pair is slow when its bandwidth is below `min_fraction` of `reference` (the NIC line rate
// when known, else the median of the first pass), or when its exchange failed.
bool pair_slow(const FleetPair& p, double reference, double min_fraction);
double sweep_reference(const FleetNetwork& net);
// The second pass: every end of a slow first-pass pair against a different known-good rank
// (one in no slow pair). `hosts[i]` names rank i. Empty when nothing is slow or no rank is good.
std::vector<RankPair> second_pass_pairs(const FleetNetwork& net, const std::vector<std::string>& hosts,
                                        double min_fraction);

// The verdict of both passes: the hosts named as the bad end (slow with a known-good partner too),
// and slow first-pass pairs that the second pass could not resolve ("a <-> b").
struct SweepVerdict {
  std::vector<std::string> bad_hosts;
  std::vector<std::string> unresolved_pairs;
  double reference = 0;
};
SweepVerdict judge_sweep(const FleetNetwork& net, double min_fraction);

}  // namespace plumb
