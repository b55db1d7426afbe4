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

struct NodeEventFacts {
  bool collected = false;     // only `plumb agent` fills this area
  std::string boot_id;        // the boot this cycle ran in
  std::string state_db;       // the database the events were read from
  std::vector<NodeEvent> events;  // oldest first
  bool operator==(const NodeEventFacts&) const = default;
};
PLUMB_JSON(NodeEventFacts, collected, boot_id, state_db, events)

}  // namespace plumb
