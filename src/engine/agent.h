// `plumb agent` (one node's cycle: new kernel events into the state database, the check, the
// judgement over time, the report) and `plumb events` (the stored history; `events ack`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/registry.h"
#include "core/thresholds.h"
#include "engine/machine.h"
#include "engine/output.h"
#include "store/events.h"

namespace plumb {

// `plumb agent`: what its command line says.
struct AgentOptions {
  MachineOptions machine;
  OutputOptions output;
  std::string state_dir = kDefaultStateDir;
  bool once = false;      // --once: one cycle, then exit with the check's exit code
  bool no_bench = false;  // --no-bench: no benchmark in the cycle's check
  int interval_s = 600;   // --interval: time between cycles (each wait varies by up to 10 %)
  int follow_ms = 2000;   // --follow: how often the kernel log is read between cycles
  std::string listen = "127.0.0.1:9465";  // --listen: the state server of the loop; "none": none
  std::vector<std::string> only, skip;
  std::string store;      // --store: the fleet store's conninfo (postgresql://...); empty: local only
};
int run_agent(const AgentOptions& a);

// One cycle on an open store: the kernel log lines written since the last cycle of this boot
// stored as events (with the cursor, in one transaction), events older than the retention
// removed, the check collected, every stored event attached, judged, the result stored.
Report run_agent_cycle(const AgentOptions& a, const Context& ctx, const Config& cfg, const Selection& sel, EventStore& store);

// Attaches the store's history to the facts (facts.events): every stored event, and this boot's
// counter readings and earlier cycles; `now` ends the windows of the rules over time.
Result<bool> attach_agent_history(Facts& facts, EventStore& store, const std::string& boot, const std::string& now);

// For `plumb check --slurm` / `--npd` on a node where an agent runs: when DIR/plumb-agent.db
// exists, its history is attached (true). No database: false, and nothing is created. A database
// that cannot be read is said in one line on stderr (in `lang`) and the check goes on without it.
bool attach_agent_state(Facts& facts, const HostRoot& root, const std::string& state_dir, Lang lang);

// Opens the state database or throws UsageError with the one-line reason; a corrupt file moved
// aside is said on stderr in `lang`.
std::unique_ptr<EventStore> open_event_store_or_throw(const std::string& state_dir, Lang lang);

// `plumb events [ack ID --reason TEXT]`: what its command line says.
struct EventsOptions {
  std::string state_dir = kDefaultStateDir;
  std::string action;  // "" (list) or "ack"
  std::string id;      // ack: the event id
  std::string reason;  // ack: why (stored with the time)
  long long since_s = 0;  // --since: only events of the last DURATION (0: all)
  std::string kind;
  OutputOptions output;
};
int run_events(const EventsOptions& a);

}  // namespace plumb
