// Judgement over time of the node's stored kernel events (`plumb agent`): which finding judges
// each kind of event, and which kinds are hardware faults that a reboot should clear.
#pragma once

#include <string>
#include <vector>

#include "core/finding.h"
#include "core/thresholds.h"

namespace plumb {

struct NodeEventFacts;

// The id of the finding that judges events of `kind` (l3.gpu.xid for an Xid, ...).
std::string finding_for_event_kind(const std::string& kind, const std::string& code);
// Whether a recurrence of this event across boots points at hardware (an application-caused Xid,
// an OOM kill or a link change does not).
bool is_hardware_fault(const std::string& kind, const std::string& code);

// "id|subject": how a finding is named among an earlier cycle's failing ones (PastCycle).
std::string failing_key(const Finding& f);

// A condition that must persist before it fails (a port down while the node boots is not a
// fault): a link-state finding that did not pass (l3.comm.ib_ports: a port down or slower than
// the others) fails once the earlier cycles of this boot have shown it, without a break, for
// history.persist_minutes, and is a warning until then, marked with the argument held=1. Either
// way its evidence says since when it holds.
void hold_until_persistent(std::vector<Finding>& findings, const NodeEventFacts& h, const Thresholds& th);

}  // namespace plumb
