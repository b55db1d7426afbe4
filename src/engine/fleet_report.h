// The fleet report: many nodes' snapshots (files, or texts gathered over MPI) judged together.
// Each node keeps its own findings, grouped across nodes; the fleet rules add consistency,
// outliers, missing nodes and the network sweep; the nodes to drain are named.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyze/fleet.h"
#include "core/facts/comm.h"
#include "core/facts/fleet.h"
#include "core/result.h"
#include "core/thresholds.h"
#include "report/report.h"

namespace plumb {

// One node's input: a snapshot text, or why there is none.
struct FleetInput {
  std::string origin;     // file path or "rank 3"
  std::string host;       // name when there is no snapshot (the MPI processor name)
  std::string text;       // the snapshot JSON (`plumb check --save`)
  std::string no_result;  // non-empty: why no snapshot came
};

// The multi-node NCCL all-reduce of an MPI run.
struct FleetNccl {
  std::string status = "skipped";  // skipped | measured | failed
  std::string why;                 // why it was skipped, which ranks failed and how, or what ran
  int world = 0;                   // GPUs in the communicator
  int nodes = 0;
  std::optional<NcclTestsRun> run;  // rank 0's sweep, as an nccl-tests run
};

// How the fleet was measured beyond the snapshots.
struct FleetRun {
  std::string mode = "files";  // "files" or "mpi"
  FleetNetwork network;
  FleetNccl nccl;
  bool one_host = false;       // every rank ran on one machine (no network between them)
  FleetHistory history;        // a fleet store's history (judge_fleet_store)
};

// The ceiling a multi-node all-reduce is judged against: the slowest node's NICs (IB ports that
// are active, else its fastest Ethernet interface), or why there is none.
Fact<BusbwCeiling> fleet_nccl_ceiling(const std::vector<NodeSnapshot>& nodes, bool one_host);

// Reads the snapshot files named (a directory stands for its *.json files, sorted). An unreadable
// or foreign file among readable ones becomes a node without a result ("unreadable snapshot:
// ..."); none readable, a missing path or an empty directory is an error (exit 2).
Result<std::vector<NodeSnapshot>> read_fleet_files(const std::vector<std::string>& paths, const Config& cfg);
// Reads gathered texts (threads share the parsing).
std::vector<NodeSnapshot> read_fleet_inputs(std::vector<FleetInput> inputs, const Config& cfg);

// The judged fleet report.
Report judge_fleet(std::vector<NodeSnapshot> nodes, const FleetRun& run, const Config& cfg);

// The latest snapshot of every node in a fleet store (a conninfo: postgresql://...), judged as
// judge_fleet judges files, with the store's history for the rules over time.
Result<Report> judge_fleet_store(const std::string& conninfo, const Config& cfg);

// The nodes a judged report names (failing fleet findings, must-agree facts that differ, failing
// node findings on at most half of the nodes) and the failing node findings on more than half.
void name_nodes_to_drain(Report& r, const std::vector<FindingGroup>& groups);

}  // namespace plumb
