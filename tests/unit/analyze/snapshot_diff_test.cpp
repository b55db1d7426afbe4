// `plumb diff` logic on two fixture snapshots with planted differences.
#include <gtest/gtest.h>

#include "../../test_util.h"
#include "analyze/snapshot_diff.h"
#include "report/report.h"

namespace plumb {
namespace {

Facts load_snapshot_fixture(const std::string& name) {
  auto f = facts_from_snapshot(test::read_fixture("framework/snapshots/" + name), name);
  EXPECT_TRUE(f.ok()) << (f ? "" : f.error().describe());
  return f ? *f : Facts{};
}

TEST(SnapshotDiff, ListsExactlyThePlantedDifferencesInOrder) {
  auto d = diff_facts(load_snapshot_fixture("a.json"), load_snapshot_fixture("b.json"));
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
  auto d = diff_facts(load_snapshot_fixture("a.json"), load_snapshot_fixture("a.json"));
  EXPECT_TRUE(d.differences.empty());
}

TEST(SnapshotDiff, MissingPackageIsOneItem) {
  Facts a = load_snapshot_fixture("a.json");
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

TEST(SnapshotDiff, MomentaryStateIsNotADifference) {
  // Two snapshots of one machine: the same setup, the moment's state moved.
  auto snap = [](std::uint64_t avail, double avg10, std::uint64_t total_us, std::uint64_t rss, int threads) {
    Facts f = load_snapshot_fixture("a.json");
    f.host.memory.mem_available_bytes = Fact<std::uint64_t>::of(avail, "/proc/meminfo");
    f.host.memory.mem_total_bytes = Fact<std::uint64_t>::of(64ull << 30, "/proc/meminfo");
    Pressure p;
    PressureLine line;
    line.avg10 = avg10;
    line.total_us = total_us;
    p.some = line;
    f.host.memory.pressure.io = Fact<Pressure>::of(p, "/proc/pressure/io");
    f.host.process.vm_rss_bytes = Fact<std::uint64_t>::of(rss, "/proc/self/status");
    f.host.process.threads = Fact<int>::of(threads, "/proc/self/status");
    f.host.cgroup.memory_current_bytes = Fact<std::uint64_t>::of(rss * 9, "memory.current");
    return f;
  };
  Facts a = snap(24554156032ull, 0.93, 42640287, 11317248, 11);
  Facts b = snap(24524414976ull, 1.67, 42678344, 11476992, 8);
  EXPECT_TRUE(diff_facts(a, b).differences.empty());
  // A change of setup among them still shows.
  b.host.memory.mem_total_bytes = Fact<std::uint64_t>::of(32ull << 30, "/proc/meminfo");
  auto d = diff_facts(a, b);
  ASSERT_EQ(d.differences.size(), 1u);
  EXPECT_EQ(d.differences[0].path, "host.memory.mem_total_bytes");
}

TEST(SnapshotDiff, EnvironmentVariablesListedOnce) {
  Facts a = load_snapshot_fixture("a.json");
  Facts b = a;
  std::map<std::string, std::string> env{{"NCCL_IB_HCA", "mlx5_0"}};
  b.comm.env = Fact<std::map<std::string, std::string>>::of(env, "/proc/1/environ");
  auto d = diff_facts(a, b);
  ASSERT_EQ(d.differences.size(), 1u);
  EXPECT_EQ(d.differences[0].path, "env.NCCL_IB_HCA");
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
