// Facts of `plumb fleet`: many nodes' snapshots judged together (read from files or gathered over
// MPI): the nodes and what each reported, facts that disagree across the fleet, bench metrics per
// node, the node-to-node network sweep, and the nodes the judged report names for draining.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/json_fwd.h"

namespace plumb {

// One node of the fleet. A node without a snapshot keeps its name and says why none came.
struct FleetNode {
  std::string host;        // hostname from the snapshot; for a node without one, the MPI host or file
  std::string origin;      // the snapshot file, or "rank 3"
  std::string no_result;   // empty: a snapshot was read; else why not ("timed out after 30 s")
  std::string started_at;  // when its check ran (ISO 8601 UTC)
  std::string tool_version;
  int fail = 0, warn = 0, skip = 0;  // counts of its own findings
  bool operator==(const FleetNode&) const = default;
};
PLUMB_JSON(FleetNode, host, origin, no_result, started_at, tool_version, fail, warn, skip)

struct FleetValue {
  std::string host;
  std::string value;
  bool operator==(const FleetValue&) const = default;
};
PLUMB_JSON(FleetValue, host, value)

// A fact that must be equal across the fleet and is not: the value most nodes have and every
// node that differs, with its value.
struct FleetMismatch {
  std::string key;       // consistency table key ("os.kernel"); UI label fleet.key.<key>
  std::string severity;  // "fail" or "warn", from the consistency table
  std::string majority;  // the most common value
  int majority_nodes = 0;
  std::vector<FleetValue> odd;  // nodes that differ, each with its value
  bool operator==(const FleetMismatch&) const = default;
};
PLUMB_JSON(FleetMismatch, key, severity, majority, majority_nodes, odd)

struct FleetSample {
  std::string host;
  double value = 0;
  bool operator==(const FleetSample&) const = default;
};
PLUMB_JSON(FleetSample, host, value)

// One bench metric across the nodes that measured it (each node's median).
struct FleetMetric {
  std::string name;  // BenchMetric::name ("membw.copy.all")
  std::string unit;
  bool higher_is_better = true;
  std::vector<FleetSample> samples;  // node order
  bool operator==(const FleetMetric&) const = default;
};
PLUMB_JSON(FleetMetric, name, unit, higher_is_better, samples)

// One point-to-point measurement between two nodes (MPI ranks).
struct FleetPair {
  std::string a, b;          // host names
  int pass = 1;              // 1: the shifted ring; 2: a suspect end paired with a known-good node
  double gbytes_per_s = 0;   // one direction, large messages
  double latency_us = 0;     // half round trip, small messages
  std::string error;         // non-empty: the exchange failed or timed out
  bool operator==(const FleetPair&) const = default;
};
PLUMB_JSON(FleetPair, a, b, pass, gbytes_per_s, latency_us, error)

struct FleetNetwork {
  std::string status = "not_run";  // measured | skipped | not_run
  std::string why;                 // skipped/not_run: the reason
  bool loopback = false;           // all ranks on one host: measures MPI mechanics, not a NIC
  double line_rate_gbytes_per_s = 0;  // the slowest node's fastest NIC/IB port; 0: unknown
  std::string line_rate_source;
  long message_bytes = 0;
  int iterations = 0;
  std::vector<FleetPair> pairs;
  bool operator==(const FleetNetwork&) const = default;
};
PLUMB_JSON(FleetNetwork, status, why, loopback, line_rate_gbytes_per_s, line_rate_source, message_bytes, iterations,
           pairs)

// A node the judged report names, with the finding ids that name it.
struct FleetDrain {
  std::string host;
  std::vector<std::string> ids;
  bool operator==(const FleetDrain&) const = default;
};
PLUMB_JSON(FleetDrain, host, ids)

// One node's history in the fleet store (`plumb fleet report --store`), for the rules over time.
struct FleetHistoryNode {
  std::string host;
  int failed = 0;                            // cycles with a failing finding in the repeat window
  int events_recent = 0, events_before = 0;  // events in the recent window, and in the one before it
  std::string change;                        // "kernel 6.1.0 -> 6.5.0" in the regression window; empty: none
  std::string metric;                        // its benchmark that changed most for the worse
  double change_percent = 0;                 // that change (negative: worse)
  double others_percent = 0;                 // the median change of the nodes without a change, same metric
  int others = 0;                            // how many such nodes
  bool operator==(const FleetHistoryNode&) const = default;
};

struct FleetHistory {
  bool collected = false;  // read from a fleet store
  std::vector<FleetHistoryNode> nodes;  // the nodes with failures, events or a change
  bool operator==(const FleetHistory&) const = default;
};

struct FleetFacts {
  bool collected = false;  // only `plumb fleet` fills this area
  std::string mode;        // "files" or "mpi"
  std::vector<FleetNode> nodes;
  int compared_keys = 0;   // consistency-table facts compared
  std::vector<FleetMismatch> mismatches;
  std::vector<FleetMetric> metrics;
  FleetNetwork network;
  std::string nccl;        // multi-node NCCL: why it did not run, what failed, or what ran
  std::string nccl_status = "skipped";   // skipped | measured | failed
  std::vector<FleetDrain> drain;          // nodes named by failing findings, worst first
  std::vector<std::string> fleet_wide;    // failing node finding ids present on most nodes
  std::map<std::string, std::string> rule;  // the outlier and network rules as applied (for the report)
  FleetHistory history;  // --store: the nodes' history (not in the JSON: the findings it yields name what matters)
  bool operator==(const FleetFacts&) const = default;
};
PLUMB_JSON(FleetFacts, collected, mode, nodes, compared_keys, mismatches, metrics, network, nccl, nccl_status, drain, fleet_wide,
           rule)

}  // namespace plumb
