// NVML's device list (vendor/nvml_devices.h) against the fake NVML (tests/helpers/fake_nvml): the
// fake's devices in order with their bus ids, a device without a handle, and a failing nvmlInit.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <vector>

#include "core/json.h"
#include "vendor/nvml_devices.h"
#include "../../test_util.h"

namespace plumb {
namespace {

std::string fake_lib() { return std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-nvml.so"; }

// A scenario fixture, edited by `edit`, written where the fake reads it.
std::string scenario(const std::string& name, const std::function<void(nlohmann::json&)>& edit = {}) {
  auto j = nlohmann::json::parse(test::read_fixture("gpu/scenarios/" + name + ".json"));
  if (edit) edit(j);
  // A new name each time: the fake reloads a scenario only when the path changes.
  static int written = 0;
  std::string path = ::testing::TempDir() + "nvml-devices-" + std::to_string(::getpid()) + "-" +
                     std::to_string(++written) + "-" + name + ".json";
  std::ofstream(path) << j.dump();
  return path;
}

struct Listed {
  Result<NvmlDeviceList> list;
  std::vector<std::string> calls;
};

Listed list_devices(const std::string& scenario_path) {
  ::setenv("PLUMB_FAKE_NVML_SCENARIO", scenario_path.c_str(), 1);
  auto lib = NvmlLibrary::open(fake_lib());
  EXPECT_TRUE(lib.ok());
  std::vector<std::string> calls;
  Listed out{nvml_devices(**lib, [&calls](const char* c) { calls.emplace_back(c); }), {}};
  out.calls = calls;
  if (out.list && (*lib)->api().shutdown != nullptr) (*lib)->api().shutdown();
  return out;
}

TEST(NvmlDevices, ListsTheFakesDevicesWithTheirBusIds) {
  auto path = scenario("a100-sxm-4x-hot-throttling");
  auto spec = nlohmann::json::parse(std::ifstream(path));
  auto l = list_devices(path);
  ASSERT_TRUE(l.list.ok()) << l.list.error().message;
  EXPECT_EQ(l.list->count_error, "");
  ASSERT_EQ(l.list->count, spec["devices"].size());
  ASSERT_EQ(l.list->devices.size(), spec["devices"].size());
  for (std::size_t i = 0; i < l.list->devices.size(); ++i) {
    const NvmlDevice& d = l.list->devices[i];
    EXPECT_EQ(d.index, i);
    EXPECT_NE(d.handle, nullptr);
    EXPECT_EQ(d.error, "");
    EXPECT_EQ(d.bus_id, normalise_bus_id(spec["devices"][i]["bus_id"].get<std::string>()).value_or("?"));
  }
  EXPECT_EQ(l.list->devices[2].bus_id, "0000:47:00.0");
  ASSERT_GE(l.calls.size(), 3u);
  EXPECT_EQ(l.calls[0], "nvmlInit");
  EXPECT_EQ(l.calls[1], "nvmlDeviceGetCount");
  EXPECT_EQ(l.calls[2], "nvmlDeviceGetHandleByIndex");
}

TEST(NvmlDevices, DeviceWithoutHandleSaysWhy) {
  auto l = list_devices(scenario("v100-2x-legacy-driver", [](nlohmann::json& j) {
    j["devices"][1]["handle_error"] = "NO_PERMISSION";
  }));
  ASSERT_TRUE(l.list.ok()) << l.list.error().message;
  ASSERT_EQ(l.list->devices.size(), 2u);
  EXPECT_EQ(l.list->devices[0].bus_id, "0000:1a:00.0");
  EXPECT_EQ(l.list->devices[1].handle, nullptr);
  EXPECT_EQ(l.list->devices[1].error.rfind("nvmlDeviceGetHandleByIndex(1): NVML_ERROR_NO_PERMISSION", 0), 0u)
      << l.list->devices[1].error;
}

TEST(NvmlDevices, FailedCountKeepsNvmlInitialised) {
  auto l = list_devices(scenario("v100-2x-legacy-driver", [](nlohmann::json& j) {
    j["errors"]["nvmlDeviceGetCount"] = "UNKNOWN";
  }));
  ASSERT_TRUE(l.list.ok()) << l.list.error().message;
  EXPECT_EQ(l.list->count_error.rfind("nvmlDeviceGetCount failed: NVML_ERROR_UNKNOWN", 0), 0u) << l.list->count_error;
  EXPECT_TRUE(l.list->devices.empty());
}

TEST(NvmlDevices, FailedInitIsAnError) {
  auto l = list_devices("/nonexistent/scenario.json");  // the fake fails nvmlInit without a scenario
  ASSERT_FALSE(l.list.ok());
  EXPECT_EQ(l.list.error().message.rfind("nvmlInit failed: NVML_ERROR_DRIVER_NOT_LOADED", 0), 0u)
      << l.list.error().message;
}

}  // namespace
}  // namespace plumb
