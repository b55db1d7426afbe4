// Pressure stall information (PSI): /proc/pressure/{cpu,memory,io}.
#pragma once

#include <optional>
#include <string_view>

#include "core/facts/host.h"
#include "core/host_root.h"

namespace plumb {

// "some avg10=0.10 avg60=2.00 avg300=3.85 total=15\nfull ..." -> Pressure; nullopt when there is
// no valid `some` line (a PSI file always has one).
std::optional<Pressure> parse_pressure(std::string_view text);

PressureFacts read_pressure(const HostRoot& root);

}  // namespace plumb
