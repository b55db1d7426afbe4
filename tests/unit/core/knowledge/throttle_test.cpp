// The one clock event reason table: bits in order, both name styles from the same rows.
#include <gtest/gtest.h>

#include "core/knowledge/throttle.h"

namespace plumb {
namespace {

TEST(ClockEventReasons, TableIsOrderedAndComplete) {
  std::uint64_t last = 0;
  for (const auto& r : clock_event_reasons()) {
    EXPECT_GT(r.bit, last);
    EXPECT_EQ(r.bit & (r.bit - 1), 0u) << "one bit per row";
    last = r.bit;
    EXPECT_NE(std::string(r.key), "");
    EXPECT_NE(std::string(r.label), "");
  }
  EXPECT_EQ(clock_event_reasons().size(), 11u);
}

TEST(ClockEventReasons, KeysAndLabelsOfTheSameBits) {
  EXPECT_EQ(clock_event_reason_names(0, ReasonNames::key), "none");
  EXPECT_EQ(clock_event_reason_names(0x48, ReasonNames::key), "hw_slowdown, hw_thermal_slowdown");
  EXPECT_EQ(clock_event_reason_names(0x48, ReasonNames::label), "HW slowdown, HW thermal slowdown");
  EXPECT_EQ(describe_event_reasons(0x1), "idle");
  EXPECT_EQ(watch::throttle_reason_names(0x1000 | 0x4), "sw_power_cap, other(0x1000)");
  int throttles = 0;
  for (const auto& r : clock_event_reasons()) throttles += r.throttle ? 1 : 0;
  EXPECT_EQ(throttles, 5);  // the plumb_gpu_throttled series
  EXPECT_EQ(watch::kHardwareThrottle, clock_event::kHwSlowdown | clock_event::kHwThermal | clock_event::kHwPowerBrake);
}

}  // namespace
}  // namespace plumb
