// The benchmark context's GPU clocks through the GPU layer's NVML loader, against the fake NVML
// (tests/helpers/fake_nvml): current and legacy (unversioned names only) libraries.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "bench/nvml_clocks.h"
#include "../../test_util.h"

namespace plumb {
namespace {

std::string fake_lib(bool legacy) {
  return std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-nvml" + (legacy ? "-legacy" : "") + ".so";
}

std::vector<BenchGpuState> states(const std::string& scenario, bool legacy) {
  ::setenv("PLUMB_FAKE_NVML_SCENARIO", test::fixture("gpu/scenarios/" + scenario + ".json").c_str(), 1);
  return read_gpu_states(fake_lib(legacy));
}

TEST(BenchNvmlClocks, ThrottledGpuShowsItsClockAndReasons) {
  auto s = states("a100-sxm-4x-hot-throttling", false);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[2].bus_id, "0000:47:00.0");
  ASSERT_TRUE(s[2].sm_clock_mhz.has());
  EXPECT_EQ(*s[2].sm_clock_mhz, 1005);
  EXPECT_EQ(*s[2].mem_clock_mhz, 1593);
  ASSERT_TRUE(s[2].throttle_reasons.has());
  EXPECT_EQ(*s[2].throttle_reasons, 72u);
  EXPECT_EQ(s[2].throttle_reasons.source, "nvmlDeviceGetCurrentClocksEventReasons(gpu 0000:47:00.0)");
  EXPECT_EQ(*s[0].throttle_reasons, 0u);
}

// Another job's processes on a GPU are part of the benchmark's context (l2.bench.noise warns).
TEST(BenchNvmlClocks, OtherProcessesOnAGpuAreNamed) {
  auto s = states("a100-pcie-4x-degraded-link", false);
  ASSERT_EQ(s.size(), 4u);
  ASSERT_TRUE(s[0].other_processes.has()) << s[0].other_processes.why();
  // pid 4242 is not running here: named by pid and memory only.
  EXPECT_EQ(*s[0].other_processes, std::vector<std::string>{"pid 4242 (29 GiB)"});
  EXPECT_EQ(s[0].other_processes.source, "nvmlDeviceGetComputeRunningProcesses_v3(gpu 0000:17:00.0)");
  ASSERT_TRUE(s[2].other_processes.has());
  EXPECT_TRUE(s[2].other_processes->empty());
}

TEST(BenchNvmlClocks, LegacyDriverUsesTheOldNames) {
  // An old driver exports nvmlInit / nvmlDeviceGetCount without _v2 and the ...ThrottleReasons name.
  auto s = states("v100-2x-legacy-driver", true);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].bus_id, "0000:1a:00.0");
  EXPECT_EQ(*s[0].sm_clock_mhz, 135);
  EXPECT_EQ(s[0].throttle_reasons.source, "nvmlDeviceGetCurrentClocksThrottleReasons(gpu 0000:1a:00.0)");
}

TEST(BenchNvmlClocks, StuckNvmlIsAbandonedAtTheDeadline) {
  // Every nvmlDeviceGetClockInfo sleeps 300 ms: two GPUs, two clocks each take 1.2 s in all.
  ::setenv("PLUMB_FAKE_NVML_SCENARIO", test::fixture("gpu/scenarios/v100-2x-clock-hang.json").c_str(), 1);
  auto t0 = std::chrono::steady_clock::now();
  auto s = read_gpu_states(fake_lib(false), std::chrono::milliseconds(100));
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_TRUE(s.empty());
  EXPECT_LT(took, std::chrono::milliseconds(900));
  // The same library answers in full with time to spare; this also outlasts the abandoned reader,
  // so the fake is shut down before the next scenario.
  s = read_gpu_states(fake_lib(false), std::chrono::milliseconds(10000));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(*s[0].sm_clock_mhz, 135);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
}

TEST(BenchNvmlClocks, MissingLibraryGivesNoStates) {
  EXPECT_TRUE(read_gpu_states("/nonexistent/libnvidia-ml.so.1").empty());
}

}  // namespace
}  // namespace plumb
