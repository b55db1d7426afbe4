// NVML clocks event (throttle) reason bits (nvml-api.md section 2.4) and their names.
#pragma once

#include <cstdint>
#include <string>

namespace plumb::watch {

inline constexpr std::uint64_t kGpuIdle = 0x1;           // normal on an idle GPU
inline constexpr std::uint64_t kSwPowerCap = 0x4;
inline constexpr std::uint64_t kHwSlowdown = 0x8;
inline constexpr std::uint64_t kSwThermalSlowdown = 0x20;
inline constexpr std::uint64_t kHwThermalSlowdown = 0x40;
inline constexpr std::uint64_t kHwPowerBrakeSlowdown = 0x80;

inline constexpr std::uint64_t kHardwareThrottle = kHwSlowdown | kHwThermalSlowdown | kHwPowerBrakeSlowdown;
inline constexpr std::uint64_t kSoftwareThermal = kSwThermalSlowdown;
inline constexpr std::uint64_t kPowerCap = kSwPowerCap;

// "hw_slowdown, hw_thermal_slowdown"; unknown bits as other(0x...); "none" for 0.
std::string throttle_reason_names(std::uint64_t bits);

}  // namespace plumb::watch
