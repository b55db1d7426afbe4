// NVML clock event reasons (formerly "clocks throttle reasons"): the bits of
// nvmlDeviceGetCurrentClocksEventReasons / nvmlClocksEventReason* in NVIDIA's nvml.h (NVML API
// Reference, "Clock Event Reasons"), with one name table for evidence, reports and metric labels.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace plumb {

namespace clock_event {
inline constexpr std::uint64_t kGpuIdle = 0x1;               // normal on an idle GPU
inline constexpr std::uint64_t kApplicationsClocks = 0x2;
inline constexpr std::uint64_t kSwPowerCap = 0x4;
inline constexpr std::uint64_t kHwSlowdown = 0x8;
inline constexpr std::uint64_t kSyncBoost = 0x10;
inline constexpr std::uint64_t kSwThermal = 0x20;
inline constexpr std::uint64_t kHwThermal = 0x40;
inline constexpr std::uint64_t kHwPowerBrake = 0x80;
inline constexpr std::uint64_t kDisplayClock = 0x100;
inline constexpr std::uint64_t kBoardLimit = 0x200;   // online reference only
inline constexpr std::uint64_t kReliability = 0x400;  // online reference only

inline constexpr std::uint64_t kHardware = kHwSlowdown | kHwThermal | kHwPowerBrake;
}  // namespace clock_event

struct ClockEventReason {
  std::uint64_t bit;
  const char* key;    // "hw_slowdown": metric label values, watch evidence
  const char* label;  // "HW slowdown": report cells and GPU evidence
  bool throttle;      // a slowdown worth a metric of its own (power cap, thermal, hardware)
};
// Every known bit, in bit order.
std::span<const ClockEventReason> clock_event_reasons();

enum class ReasonNames { key, label };
// "hw_slowdown, hw_thermal_slowdown" or "HW slowdown, HW thermal slowdown"; unknown bits as
// other(0x...); "none" for 0.
std::string clock_event_reason_names(std::uint64_t bits, ReasonNames style);

inline std::string describe_event_reasons(std::uint64_t bits) {
  return clock_event_reason_names(bits, ReasonNames::label);
}

// The names the watch rules use.
namespace watch {
inline constexpr std::uint64_t kHardwareThrottle = clock_event::kHardware;
inline constexpr std::uint64_t kSoftwareThermal = clock_event::kSwThermal;
inline constexpr std::uint64_t kPowerCap = clock_event::kSwPowerCap;
inline std::string throttle_reason_names(std::uint64_t bits) { return clock_event_reason_names(bits, ReasonNames::key); }
}  // namespace watch

}  // namespace plumb
