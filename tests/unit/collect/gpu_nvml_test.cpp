// Our NVML declarations, the loader's fallbacks, and the collector against the fake library.
#include <gtest/gtest.h>

#include <cstdlib>

#include "collect/gpu_nvml.h"
#include "vendor/nvml.h"
#include "vendor/nvml_loader.h"
#include "../../test_util.h"

namespace plumb {
namespace {

std::string nvml_fake_lib(bool legacy = false) {
  return std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-nvml" + (legacy ? "-legacy" : "") + ".so";
}

// Reads a scenario through the same dlopen path as production.
GpuFacts read_scenario(const std::string& name, bool legacy = false) {
  ::setenv("PLUMB_FAKE_NVML_SCENARIO", test::fixture("gpu/scenarios/" + name + ".json").c_str(), 1);
  Context ctx;
  ctx.root = HostRoot(test::fixture("gpu/root-empty"));
  ctx.nvml_lib = nvml_fake_lib(legacy);
  return read_gpu_facts(ctx, std::chrono::milliseconds(5000));
}

TEST(NvmlDecls, VersionedStructConstants) {
  // The version field is sizeof | ver << 24, never the literal 2 (nvidia-settings#78).
  EXPECT_EQ(nvml::kMemoryV2Version, sizeof(nvml::MemoryV2) | (2u << 24));
  EXPECT_EQ(nvml::kTemperatureV1Version, sizeof(nvml::TemperatureV1) | (1u << 24));
  EXPECT_EQ(nvml::cuda_major(12040), 12);
  EXPECT_EQ(nvml::cuda_minor(12040), 4);
}

TEST(NvmlDecls, ReturnCodeNames) {
  EXPECT_STREQ(nvml::return_name(15), "NVML_ERROR_GPU_IS_LOST");
  EXPECT_STREQ(nvml::return_name(12345), "NVML_ERROR_UNRECOGNISED");
  EXPECT_EQ(nvml::return_from_name("NOT_SUPPORTED"), 3);
  EXPECT_EQ(nvml::return_from_name("NVML_ERROR_NO_PERMISSION"), 4);
  EXPECT_EQ(nvml::return_from_name("SUCCESS"), 0);
  EXPECT_EQ(nvml::return_from_name("bogus"), -1);
}

TEST(NvmlDecls, BusIdNormalisation) {
  EXPECT_EQ(normalise_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(normalise_bus_id("0000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(normalise_bus_id("00000018:01:00.0"), "0018:01:00.0");  // GB200 domains
  EXPECT_FALSE(normalise_bus_id("garbage"));
  EXPECT_FALSE(normalise_bus_id("0000:3b:00"));
  EXPECT_FALSE(normalise_bus_id("0000:3b:40.0"));  // device > 31
}

TEST(NvmlDecls, ClocksEventReasons) {
  EXPECT_EQ(describe_event_reasons(0), "none");
  EXPECT_EQ(describe_event_reasons(0x1), "idle");
  EXPECT_EQ(describe_event_reasons(0x88), "HW slowdown, HW power brake slowdown");
  EXPECT_EQ(describe_event_reasons(0x8000000000000004ULL), "SW power cap, other(0x8000000000000000)");
  EXPECT_EQ(topology_level_name(50), "SYS");
  EXPECT_EQ(topology_level_name(10), "PIX");
}

TEST(NvmlLoader, MissingLibrarySaysWhy) {
  auto r = NvmlLibrary::open("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::absent);
  EXPECT_NE(r.error().message.find("/nonexistent/libnvidia-ml.so.1 not found"), std::string::npos);
  auto d = NvmlLibrary::open("");
  if (d) GTEST_SKIP() << "this machine has an NVIDIA driver";
  EXPECT_EQ(d.error().message, "libnvidia-ml.so.1 not found: no NVIDIA driver installed");
}

TEST(NvmlLoader, NotAnNvmlLibrary) {
  auto r = NvmlLibrary::open("libz.so.1");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not a usable NVML library"), std::string::npos);
}

TEST(NvmlLoader, NewestNamesFirst) {
  auto r = NvmlLibrary::open(nvml_fake_lib());
  ASSERT_TRUE(r) << r.error().message;
  const auto& names = (*r)->resolved();
  auto has = [&](const char* n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  EXPECT_TRUE(has("nvmlInit_v2"));
  EXPECT_FALSE(has("nvmlInit"));
  EXPECT_TRUE(has("nvmlDeviceGetPciInfo_v3"));
  EXPECT_TRUE(has("nvmlDeviceGetCurrentClocksEventReasons"));
  EXPECT_TRUE(has("nvmlDeviceGetComputeRunningProcesses_v3"));
  EXPECT_EQ((*r)->api().processes_version, 3);
}

TEST(NvmlLoader, OldDriverFallsBackToOldNames) {
  auto r = NvmlLibrary::open(nvml_fake_lib(true));
  ASSERT_TRUE(r) << r.error().message;
  const auto& names = (*r)->resolved();
  auto has = [&](const char* n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  EXPECT_TRUE(has("nvmlInit"));
  EXPECT_TRUE(has("nvmlDeviceGetCount"));
  EXPECT_TRUE(has("nvmlDeviceGetPciInfo_v2"));
  EXPECT_TRUE(has("nvmlDeviceGetCurrentClocksThrottleReasons"));
  EXPECT_EQ((*r)->api().processes_version, 1);
  EXPECT_EQ((*r)->api().memory_v2, nullptr);
  EXPECT_EQ((*r)->api().pcie_gpu_max_gen, nullptr);
}

TEST(NvmlCollector, HealthyH100Values) {
  GpuFacts g = read_scenario("h100-8x-healthy");
  ASSERT_EQ(g.unavailable, "");
  EXPECT_EQ(g.stalled_call, "");
  EXPECT_EQ(*g.driver_version, "535.183.01");
  EXPECT_EQ(*g.cuda_driver_version, 12020);
  ASSERT_EQ(g.devices.size(), 8u);
  const GpuDevice& d = g.devices[2];
  EXPECT_EQ(d.bus_id, "0000:75:00.0");
  EXPECT_EQ(d.uuid, "GPU-973565ff-45cf-12ea-4e91-33386720f7bb");
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(*d.memory_total, 81559ULL << 20);
  EXPECT_EQ(*d.memory_reserved, 551ULL << 20);
  EXPECT_EQ(*d.temperature_c, 39);
  EXPECT_EQ(d.temperature_c.source, "nvmlDeviceGetTemperatureV(gpu 0000:75:00.0)");
  EXPECT_EQ(*d.power_mw, 118010);
  EXPECT_EQ(*d.clocks_event_reasons, 1u);
  EXPECT_EQ(*d.pcie.width_max, 16);
  EXPECT_EQ(*d.pcie.gen_gpu_max, 5);
  EXPECT_EQ(d.nvlink_active->size(), 18u);
  EXPECT_TRUE(*d.persistence_mode);
  EXPECT_EQ(*d.compute_mode, "Default");
  EXPECT_FALSE(d.mem_health.retired_pending.has());
  EXPECT_NE(d.mem_health.retired_pending.missing.find("NOT_SUPPORTED"), std::string::npos);
  EXPECT_TRUE(d.processes->empty());
  ASSERT_EQ(g.topology.size(), 28u);
  EXPECT_EQ(*g.topology[0].level, 40);  // 0000:53 and 0000:64 on one socket
  EXPECT_EQ(*g.topology[3].level, 50);  // 0000:53 and 0000:97 across sockets
}

TEST(NvmlCollector, OldDriverLacksReservedMemory) {
  GpuFacts g = read_scenario("v100-2x-legacy-driver", true);
  ASSERT_EQ(g.devices.size(), 2u);
  const GpuDevice& d = g.devices[1];
  EXPECT_EQ(*d.memory_total, 16160ULL << 20);
  EXPECT_FALSE(d.memory_reserved.has());
  EXPECT_EQ(*d.temperature_c, 35);
  EXPECT_EQ(d.temperature_c.source, "nvmlDeviceGetTemperature(gpu 0000:1b:00.0)");
  EXPECT_TRUE(*d.mem_health.retired_pending);
  EXPECT_EQ(*d.mem_health.retired_double_bit, 1);
  EXPECT_EQ(d.nvlink_active->size(), 6u);
}

TEST(NvmlCollector, LostGpuKeepsTheOthers) {
  GpuFacts g = read_scenario("h100-8x-gpu-lost");
  ASSERT_EQ(g.devices.size(), 8u);
  EXPECT_NE(g.devices[3].lost.find("NVML_ERROR_GPU_IS_LOST"), std::string::npos);
  EXPECT_EQ(g.devices[3].bus_id, "");
  EXPECT_TRUE(g.devices[4].lost.empty());
  EXPECT_EQ(g.topology.size(), 21u);  // 7 usable GPUs
}

TEST(NvmlCollector, ProcessesAndTimeVaryingSamples) {
  GpuFacts a = read_scenario("a100-sxm-4x-time-varying");
  ASSERT_EQ(a.devices.size(), 4u);
  ASSERT_TRUE(a.devices[0].processes.has());
  ASSERT_EQ(a.devices[0].processes->size(), 1u);
  EXPECT_EQ((*a.devices[0].processes)[0].pid, 7001);
  EXPECT_EQ((*a.devices[0].processes)[0].used_memory_bytes, 59000ULL << 20);
  // Samples by call count: each read moves to the next utilisation sample.
  EXPECT_EQ(*a.devices[0].util_gpu, 10);
  GpuFacts b = read_scenario("a100-sxm-4x-time-varying");
  EXPECT_EQ(*b.devices[0].util_gpu, 50);
}

}  // namespace
}  // namespace plumb
