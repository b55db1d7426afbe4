// Names of NVML clocks event reason bits, for evidence and metrics labels.
#include "core/knowledge/throttle.h"

#include <cstdio>
#include <utility>

namespace plumb::watch {

std::string throttle_reason_names(std::uint64_t bits) {
  static const std::pair<std::uint64_t, const char*> kNames[] = {
      {0x1, "gpu_idle"},          {0x2, "applications_clocks"}, {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},       {0x10, "sync_boost"},         {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"}, {0x100, "display_clock"},
      {0x200, "board_limit"},     {0x400, "reliability"}};
  if (bits == 0) return "none";
  std::string out;
  std::uint64_t known = 0;
  for (const auto& [bit, name] : kNames) {
    known |= bit;
    if ((bits & bit) != 0) out += (out.empty() ? "" : ", ") + std::string(name);
  }
  if ((bits & ~known) != 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "other(0x%llx)", static_cast<unsigned long long>(bits & ~known));
    out += (out.empty() ? "" : ", ") + std::string(buf);
  }
  return out;
}

}  // namespace plumb::watch
