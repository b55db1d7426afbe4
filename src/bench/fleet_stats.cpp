// Robust statistics for fleet outliers and the plan/verdict of the node-to-node network sweep.
#include "bench/fleet_stats.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace plumb {

double mad_of(const std::vector<double>& v, double med) {
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::abs(x - med));
  return median_of(std::move(dev));
}

MetricSummary summarize(const FleetMetric& m) {
  MetricSummary s;
  std::vector<double> v;
  for (const auto& x : m.samples) v.push_back(x.value);
  s.nodes = static_cast<int>(v.size());
  if (v.empty()) return s;
  s.median = median_of(v);
  s.mad = mad_of(v, s.median);
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  s.min = *lo;
  s.max = *hi;
  return s;
}

std::vector<Outlier> find_outliers(const FleetMetric& m, const OutlierRule& rule) {
  std::vector<Outlier> out;
  if (static_cast<int>(m.samples.size()) < rule.min_nodes) return out;
  MetricSummary s = summarize(m);
  double mad = std::max(s.mad, rule.mad_floor_fraction * std::abs(s.median));
  if (mad <= 0 || s.median == 0) return out;  // all zero: nothing to compare against
  double sign = m.higher_is_better ? 1.0 : -1.0;
  for (const auto& x : m.samples) {
    double z = sign * 0.6745 * (x.value - s.median) / mad;
    double deviation = sign * (x.value - s.median) / std::abs(s.median);
    if (deviation < -rule.below_fraction && z < rule.z) out.push_back({x.host, x.value, s.median, deviation, z});
  }
  return out;
}

std::vector<std::vector<RankPair>> schedule_rounds(const std::vector<RankPair>& pairs) {
  std::vector<std::vector<RankPair>> rounds;
  std::vector<std::set<int>> busy;
  for (const auto& p : pairs) {
    std::size_t r = 0;
    while (r < rounds.size() && (busy[r].count(p.first) || busy[r].count(p.second))) ++r;
    if (r == rounds.size()) {
      rounds.emplace_back();
      busy.emplace_back();
    }
    rounds[r].push_back(p);
    busy[r].insert(p.first);
    busy[r].insert(p.second);
  }
  return rounds;
}

std::vector<RankPair> ring_pairs(int n) {
  std::vector<RankPair> out;
  if (n < 2) return out;
  if (n == 2) return {{0, 1}};
  for (int i = 0; i < n; ++i) out.emplace_back(i, (i + 1) % n);
  return out;
}

bool pair_slow(const FleetPair& p, double reference, double min_fraction) {
  if (!p.error.empty()) return true;
  return reference > 0 && p.gbytes_per_s < min_fraction * reference;
}

double sweep_reference(const FleetNetwork& net) {
  if (net.line_rate_gbytes_per_s > 0 && !net.loopback) return net.line_rate_gbytes_per_s;
  std::vector<double> v;
  for (const auto& p : net.pairs) {
    if (p.pass == 1 && p.error.empty()) v.push_back(p.gbytes_per_s);
  }
  return median_of(std::move(v));
}

namespace {

// Hosts in slow first-pass pairs (suspects) and the rest (known good), in rank order.
void split_suspects(const FleetNetwork& net, const std::vector<std::string>& hosts, double reference,
                    double min_fraction, std::vector<int>& suspects, std::vector<int>& good) {
  std::set<std::string> slow;
  for (const auto& p : net.pairs) {
    if (p.pass == 1 && pair_slow(p, reference, min_fraction)) {
      slow.insert(p.a);
      slow.insert(p.b);
    }
  }
  for (int i = 0; i < static_cast<int>(hosts.size()); ++i) (slow.count(hosts[static_cast<std::size_t>(i)]) ? suspects : good).push_back(i);
}

}  // namespace

std::vector<RankPair> second_pass_pairs(const FleetNetwork& net, const std::vector<std::string>& hosts,
                                        double min_fraction) {
  std::vector<int> suspects, good;
  split_suspects(net, hosts, sweep_reference(net), min_fraction, suspects, good);
  std::vector<RankPair> out;
  if (suspects.empty() || good.empty()) return out;
  for (std::size_t i = 0; i < suspects.size(); ++i) out.emplace_back(suspects[i], good[i % good.size()]);
  return out;
}

SweepVerdict judge_sweep(const FleetNetwork& net, double min_fraction) {
  SweepVerdict v;
  v.reference = sweep_reference(net);
  // A suspect is the bad end when a pair of it with a known-good node is slow as well.
  std::map<std::string, int> second_slow, second_total;
  for (const auto& p : net.pairs) {
    if (p.pass != 2) continue;
    ++second_total[p.a];
    if (pair_slow(p, v.reference, min_fraction)) ++second_slow[p.a];
  }
  std::set<std::string> bad;
  for (const auto& [host, n] : second_slow) {
    if (n > 0) bad.insert(host);
  }
  v.bad_hosts.assign(bad.begin(), bad.end());
  for (const auto& p : net.pairs) {
    if (p.pass != 1 || !pair_slow(p, v.reference, min_fraction)) continue;
    bool explained = bad.count(p.a) || bad.count(p.b);
    if (!explained) v.unresolved_pairs.push_back(p.a + " <-> " + p.b);
  }
  return v;
}

}  // namespace plumb
