// Judgement over time of the node's stored kernel events (`plumb agent`): which finding judges
// each kind of event, and which kinds are hardware faults that a reboot should clear.
#pragma once

#include <string>

namespace plumb {

// The id of the finding that judges events of `kind` (l3.gpu.xid for an Xid, ...).
std::string finding_for_event_kind(const std::string& kind, const std::string& code);
// Whether a recurrence of this event across boots points at hardware (an application-caused Xid,
// an OOM kill or a link change does not).
bool is_hardware_fault(const std::string& kind, const std::string& code);

}  // namespace plumb
