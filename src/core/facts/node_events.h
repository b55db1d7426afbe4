// Facts of `plumb agent`: the node's stored kernel events (every boot within the retention), read
// from the agent's state database, for the rules that judge faults over time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json_fwd.h"

namespace plumb {

// One stored event: a kernel log line that matched a known signature during one boot.
struct NodeEvent {
  std::int64_t id = 0;      // the row id in the state database (what `plumb events ack` names)
  std::string time;         // when the agent read it, UTC ISO 8601
  std::string boot_id;      // /proc/sys/kernel/random/boot_id of the boot it was logged in
  std::string source;       // "/dev/kmsg" or the --kmsg file
  std::string kind;         // xid | sxid | nvlink | pcie_aer | ecc | gpu_lost | oom_kill | ib_link | hung_task
  std::string subject;      // GPU bus id, port, task
  std::string code;         // Xid code, link state, error class
  std::string evidence;     // the kernel message (bounded)
  std::string finding;      // the finding id that judges this kind of event
  bool acked = false;       // an operator acknowledged it (`plumb events ack`)
  bool operator==(const NodeEvent&) const = default;
};
PLUMB_JSON(NodeEvent, id, time, boot_id, source, kind, subject, code, evidence, finding, acked)

// One stored reading of an error counter, kept when its value changed (the first reading of a
// boot is always kept: the counters start again at a reboot).
struct CounterSample {
  std::string time;         // when the agent read it, UTC ISO 8601
  std::string counter;      // "ib.symbol_error", "pcie.aer_correctable", "gpu.ecc_uncorrected"
  std::string subject;      // "mlx5_0 port 1", "0000:3b:00.0"
  std::int64_t value = 0;
  std::string source;       // where it was read: "/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error", "NVML"
  bool operator==(const CounterSample&) const = default;
};
PLUMB_JSON(CounterSample, time, counter, subject, value, source)

// What an earlier cycle of this boot found failing: "id|subject" of each finding that failed or
// was held back until it persisted.
struct PastCycle {
  std::string time;
  std::vector<std::string> failing;
  bool operator==(const PastCycle&) const = default;
};
PLUMB_JSON(PastCycle, time, failing)

struct NodeEventFacts {
  bool collected = false;     // only `plumb agent` fills this area
  std::string boot_id;        // the boot this cycle ran in
  std::string state_db;       // the database the events were read from
  std::string now;            // this cycle's time, UTC ISO 8601 (the windows end here)
  std::vector<NodeEvent> events;  // oldest first
  std::vector<CounterSample> samples;  // this boot's stored counter readings, oldest first
  std::vector<PastCycle> cycles;       // this boot's earlier cycles, oldest first
  bool operator==(const NodeEventFacts&) const = default;
};
PLUMB_JSON(NodeEventFacts, collected, boot_id, state_db, now, events, samples, cycles)

}  // namespace plumb
