// The watch's NVML sampler against the fake library, in process: identity, values, PCIe and the
// NVLink counters turned into rates (first sample, counter reset, unsupported GPUs).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "../../test_util.h"
#include "collect/gpu_sampler.h"

namespace plumb::watch {
namespace {

std::string sampler_fake_lib() {
  std::string path(PLUMB_BUILD_DIR);  // appended, not `+`: GCC 12 warns falsely on that (-Wstringop-overread)
  path += "/tests/helpers/libfake-nvml.so";
  return path;
}

// Writes a scenario to its own file (the fake reloads only when the file name changes) and names it.
void use_scenario(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/plumb-nvml-sampler-" + name + ".json";
  std::ofstream(path, std::ios::trunc) << text;
  ::setenv("PLUMB_FAKE_NVML_SCENARIO", path.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
}

const char* kTwoGpus = R"({
  "devices": [
    {"uuid": "GPU-a", "bus_id": "00000000:3B:00.0", "name": "NVIDIA H100 80GB HBM3",
     "memory": {"total_mib": 1000, "reserved_mib": 10, "used_mib": 400},
     "utilization": {"gpu": [10, 20, 30, 40, 50], "memory": 5}, "temperature": 55, "power_mw": 300500,
     "clocks": {"sm": 1755}, "clocks_event_reasons": 4,
     "pcie_throughput": {"rx_kb_s": 100, "tx_kb_s": 50},
     "nvlink": [true, true],
     "nvlink_throughput": {"rx_kib": [0, 1024, 3072, 1000, 2024], "tx_kib": "NOT_SUPPORTED"}},
    {"uuid": "GPU-b", "bus_id": "00000000:5E:00.0", "name": "NVIDIA H100 80GB HBM3",
     "utilization": {"gpu": 0, "memory": 0}}
  ]
})";

TEST(NvmlSampler, ReadsEachGpuThroughTheLoader) {
  use_scenario("values", kTwoGpus);
  auto s = open_nvml_sampler(sampler_fake_lib(), 0.0);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ((*s)->source(), "nvml");
  auto gpus = (*s)->sample();
  ASSERT_EQ(gpus.size(), 2u);
  const WatchGpu& a = gpus[0];
  EXPECT_EQ(a.bus_id, "0000:3b:00.0");  // NVML's form normalised to sysfs's
  EXPECT_EQ(a.uuid, "GPU-a");
  EXPECT_EQ(a.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(a.busy_pct, 10);
  EXPECT_EQ(a.mem_busy_pct, 5);
  EXPECT_EQ(a.mem_used_bytes, 400ull << 20);  // memory v2: used without the reserved part
  EXPECT_EQ(a.mem_total_bytes, 1000ull << 20);
  EXPECT_EQ(a.temperature_c, 55);
  EXPECT_EQ(a.power_w, 300.5);
  EXPECT_EQ(a.sm_clock_mhz, 1755);
  EXPECT_EQ(a.clock_event_reasons, 4u);
  EXPECT_EQ(a.pcie_rx_bytes_per_s, 100 * 1024.0);
  EXPECT_EQ(a.pcie_tx_bytes_per_s, 50 * 1024.0);
  // What the driver does not give stays unknown, never zero.
  const WatchGpu& b = gpus[1];
  EXPECT_EQ(b.busy_pct, 0);
  EXPECT_FALSE(b.mem_used_bytes);
  EXPECT_FALSE(b.temperature_c);
  EXPECT_FALSE(b.pcie_rx_bytes_per_s);
  EXPECT_EQ((*s)->sample()[0].busy_pct, 20);  // one value per read: the series advances
}

TEST(NvmlSampler, NvLinkCountersBecomeRatesAndAResetGivesNone) {
  use_scenario("nvlink", kTwoGpus);
  auto s = open_nvml_sampler(sampler_fake_lib(), 0.0);
  ASSERT_TRUE(s) << s.error().message;
  std::vector<std::vector<WatchGpu>> ticks;
  for (int i = 0; i < 5; ++i) ticks.push_back((*s)->sample());
  EXPECT_FALSE(ticks[0][0].nvlink_rx_bytes_per_s) << "nothing to subtract from yet";
  ASSERT_TRUE(ticks[1][0].nvlink_rx_bytes_per_s);
  EXPECT_GT(*ticks[1][0].nvlink_rx_bytes_per_s, 0);
  ASSERT_TRUE(ticks[2][0].nvlink_rx_bytes_per_s);
  EXPECT_FALSE(ticks[3][0].nvlink_rx_bytes_per_s) << "the counter went backwards (driver reload): no rate";
  ASSERT_TRUE(ticks[4][0].nvlink_rx_bytes_per_s);
  for (const auto& t : ticks) {
    EXPECT_FALSE(t[0].nvlink_tx_bytes_per_s) << "tx answered NOT_SUPPORTED";
    EXPECT_FALSE(t[1].nvlink_rx_bytes_per_s) << "no NVLink counters on this GPU";
  }
}

TEST(NvmlSampler, OpenFailuresSayWhy) {
  auto missing = open_nvml_sampler("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("not found"), std::string::npos) << missing.error().message;
  use_scenario("init-error", R"({"init_error": "DRIVER_NOT_LOADED", "devices": []})");
  auto init = open_nvml_sampler(sampler_fake_lib());
  ASSERT_FALSE(init);
  EXPECT_NE(init.error().message.find("nvmlInit failed: NVML_ERROR_DRIVER_NOT_LOADED"), std::string::npos)
      << init.error().message;
  use_scenario("no-gpu", R"({"devices": []})");
  auto none = open_nvml_sampler(sampler_fake_lib());
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "NVML reports no accessible GPU");
}

}  // namespace
}  // namespace plumb::watch
