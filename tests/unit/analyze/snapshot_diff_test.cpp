// `plumb diff` logic on two fixture snapshots with planted differences.
#include <gtest/gtest.h>

#include "../../test_util.h"
#include "analyze/snapshot_diff.h"
#include "report/report.h"

namespace plumb {
namespace {

Facts load(const std::string& name) {
  auto f = facts_from_snapshot(test::read_fixture("framework/snapshots/" + name), name);
  EXPECT_TRUE(f.ok()) << (f ? "" : f.error().describe());
  return f ? *f : Facts{};
}

TEST(SnapshotDiff, ListsExactlyThePlantedDifferencesInOrder) {
  auto d = diff_facts(load("a.json"), load("b.json"));
  std::vector<std::string> got;
  for (const auto& it : d.differences) got.push_back(it.group + " " + it.path + ": " + it.a + " -> " + it.b);
  std::vector<std::string> want{
      "os host.os.kernel: 5.15.0-86-generic -> 6.8.0-47-generic",
      "driver gpu.cuda_driver_version: 12.2 (12020) -> 12.4 (12040)",
      "driver gpu.driver_version: 535.161.08 -> 550.90.12",
      "gpu framework.torch.devices[].name: 8x NVIDIA A100-SXM4-80GB -> 8x NVIDIA A100 80GB PCIe",
      "gpu gpu.devices[].name: 8x NVIDIA A100-SXM4-80GB -> 8x NVIDIA A100 80GB PCIe",
      "framework framework.torch.version: 2.1.2+cu121 -> 2.3.0+cu121",
      "libs framework.torch.nccl: 2.18.1 -> 2.20.5",
      "cgroup host.cgroup.memory_limit_bytes: n/a (unlimited) -> 64 GiB (68719476736)",
      "env env.CUDA_LAUNCH_BLOCKING: (unset) -> 1",
      "env env.NCCL_P2P_DISABLE: (unset) -> 1",
      "hdf5 framework.h5py.filters.szip: true -> false",
      "hdf5 framework.h5py.hdf5_version: 1.12.2 -> 1.10.8",
  };
  EXPECT_EQ(got, want);
  // UUIDs, bus ids, HOSTNAME/PWD, sources and run metadata are not differences.
  EXPECT_GT(d.identical.at("framework"), 5);
}

TEST(SnapshotDiff, SameSnapshotHasNoDifference) {
  auto d = diff_facts(load("a.json"), load("a.json"));
  EXPECT_TRUE(d.differences.empty());
}

TEST(SnapshotDiff, MissingPackageIsOneItem) {
  Facts a = load("a.json");
  Facts b = a;
  b.framework.torch = Fact<TorchFacts>::none("not installed (No module named 'torch')", "python probe (x)");
  auto d = diff_facts(a, b);
  ASSERT_EQ(d.differences.size(), 1u);
  EXPECT_EQ(d.differences[0].path, "framework.torch");
  EXPECT_EQ(d.differences[0].a, "2.1.2+cu121");
  EXPECT_EQ(d.differences[0].b, "n/a (not installed (No module named 'torch'))");
  auto r = diff_facts(b, a);
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_EQ(r.differences[0].a, "n/a (not installed (No module named 'torch'))");
}

TEST(SnapshotDiff, OnlyRelevantEnvironmentVariables) {
  EXPECT_TRUE(relevant_env_var("NCCL_IB_HCA"));
  EXPECT_TRUE(relevant_env_var("PYTORCH_CUDA_ALLOC_CONF"));
  EXPECT_TRUE(relevant_env_var("LD_LIBRARY_PATH"));
  EXPECT_FALSE(relevant_env_var("HOSTNAME"));
  EXPECT_FALSE(relevant_env_var("PWD"));
}

}  // namespace
}  // namespace plumb
