// Fleet analysis without MPI (`plumb fleet report` and the MPI gather share it): one node's saved
// snapshot reduced to what a fleet compares, the consistency table (which facts must agree across
// a fleet and which may differ), and the fleet-wide view built from many nodes.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts.h"
#include "core/facts/fleet.h"
#include "core/finding.h"
#include "core/result.h"

namespace plumb {

// One row of the consistency table. `path` walks the facts JSON: dotted keys, `[]` maps over an
// array (distinct values, sorted, joined with ", "), a Fact reads as its value or "n/a". A path
// "env:" compares every relevant environment variable (core/knowledge/env_vars.h) whose name
// starts with the text after it, one key per variable ("env.NCCL_IB_HCA").
struct ConsistencyRow {
  std::string key;        // "os.kernel"; UI label fleet.key.<key> (env rows: the variable name)
  std::string severity;   // "fail": must be equal; "warn": should be equal; "differs": never compared
  std::string path;       // "host.os.kernel", "gpu.devices[].name", "env:NCCL_"
  std::string transform;  // "": as read; "gib": bytes rounded to GiB; "count": array length
};
const std::vector<ConsistencyRow>& consistency_table();

// What a fleet keeps of one node's snapshot (the rest is dropped as soon as it is read, so a
// thousand snapshots fit in little memory).
struct NodeSnapshot {
  FleetNode node;
  std::map<std::string, std::string> values;  // consistency key -> value as text
  bool env_known = false;                     // its environment variables were read
  std::vector<Finding> findings;              // its failing and warning findings
  std::vector<FleetMetric> metrics;           // one sample each (its median)
  double line_rate_gbytes_per_s = 0;          // its fastest active NIC/IB port; 0: unknown
  std::string line_rate_source;
  double nic_gbit = 0;   // what NCCL can use across nodes: the active IB ports together, else the fastest Ethernet
  int nic_ports = 0;
  std::string nic_source;
};

// Judges facts when a snapshot carries no findings (a bare Facts document).
using JudgeFn = std::function<std::vector<Finding>(const Facts&)>;

// Reads a snapshot written by `plumb check --save` (or a report's JSON). The node's own findings
// are the ones it saved (its check, its thresholds); a document without findings is judged with
// `judge`. Errors name the problem in one line.
Result<NodeSnapshot> read_node_snapshot(std::string_view text, const std::string& origin, const JudgeFn& judge);

// A node that sent nothing: its name and why.
NodeSnapshot missing_node(const std::string& host, const std::string& origin, const std::string& why);

// The same finding on several nodes: one row with the node list.
struct FindingGroup {
  Finding first;                   // as the first node reported it
  std::vector<std::string> hosts;  // node order
};
// Groups the nodes' failing and warning findings by id, status, variant and subject.
std::vector<FindingGroup> group_findings(const std::vector<NodeSnapshot>& nodes);

// Makes host names unique ("gpu01", then "gpu01#2" for a second snapshot of the same name).
void unique_hosts(std::vector<NodeSnapshot>& nodes);

// The fleet facts of the nodes: node list, mismatches of the consistency table (majority value,
// each differing node with its value), bench metrics per node, the line rate the network sweep
// is judged against.
FleetFacts build_fleet(const std::vector<NodeSnapshot>& nodes);

}  // namespace plumb
