// The clock event reason table; see core/knowledge/throttle.h.
#include "core/knowledge/throttle.h"

#include <array>
#include <cstdio>

namespace plumb {

namespace {
namespace ce = clock_event;
constexpr std::array<ClockEventReason, 11> kThrottleReasons{{
    {ce::kGpuIdle, "gpu_idle", "idle", false},
    {ce::kApplicationsClocks, "applications_clocks", "applications clocks setting", false},
    {ce::kSwPowerCap, "sw_power_cap", "SW power cap", true},
    {ce::kHwSlowdown, "hw_slowdown", "HW slowdown", true},
    {ce::kSyncBoost, "sync_boost", "sync boost", false},
    {ce::kSwThermal, "sw_thermal_slowdown", "SW thermal slowdown", true},
    {ce::kHwThermal, "hw_thermal_slowdown", "HW thermal slowdown", true},
    {ce::kHwPowerBrake, "hw_power_brake_slowdown", "HW power brake slowdown", true},
    {ce::kDisplayClock, "display_clock", "display clock setting", false},
    {ce::kBoardLimit, "board_limit", "board limit", false},
    {ce::kReliability, "reliability", "reliability", false},
}};
}  // namespace

std::span<const ClockEventReason> clock_event_reasons() { return kThrottleReasons; }

std::string clock_event_reason_names(std::uint64_t bits, ReasonNames style) {
  if (bits == 0) return "none";
  std::string out;
  std::uint64_t known = 0;
  for (const auto& r : kThrottleReasons) {
    known |= r.bit;
    if ((bits & r.bit) != 0) out += (out.empty() ? "" : ", ") + std::string(style == ReasonNames::key ? r.key : r.label);
  }
  if ((bits & ~known) != 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "other(0x%llx)", static_cast<unsigned long long>(bits & ~known));
    out += (out.empty() ? "" : ", ") + std::string(buf);
  }
  return out;
}

}  // namespace plumb
