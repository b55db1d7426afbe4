// The rules of artefacts read by `plumb memory`, `plumb h5` and `plumb diff`, judged on Facts built
// here (no file, no libhdf5): each rule has a passing and a failing case, stays silent when its
// area was not collected, and is selectable with --only like every other rule.
#include <gtest/gtest.h>

#include "core/catalog.h"
#include "core/json.h"
#include "core/registry.h"

namespace plumb {
namespace {

constexpr std::uint64_t GiB = 1ull << 30;

std::vector<Finding> judge_artefact(const Facts& f, const std::string& id, const Thresholds& th = Thresholds()) {
  Selection sel;
  sel.only = {id};
  return judge(f, th, sel);
}

// One device of one memory_stats() file: allocated / reserved now, reserved peak, counters.
Facts allocator(std::uint64_t alloc, std::uint64_t reserved, std::uint64_t peak, std::uint64_t ooms, std::uint64_t retries,
                std::optional<std::uint64_t> capacity) {
  Facts f;
  f.allocator.collected = true;
  f.allocator.gpu_memory_bytes = capacity;
  MemoryInput in;
  in.file = "stats.json";
  in.format = "memory_stats json";
  DeviceMemoryStats d;
  d.allocated_bytes.current = alloc;
  d.reserved_bytes.current = reserved;
  d.reserved_bytes.peak = peak;
  d.num_ooms = ooms;
  d.num_alloc_retries = retries;
  in.devices.push_back(d);
  f.allocator.files.push_back(in);
  return f;
}

Status only_status(const std::vector<Finding>& v) {
  EXPECT_EQ(v.size(), 1u);
  return v.empty() ? Status::skip : v.front().status;
}

TEST(VramRules, NotCollectedSaysNothing) {
  Facts f;
  for (const char* id : {"l2.vram.summary", "l2.vram.oom", "l2.vram.alloc_retries", "l2.vram.fragmentation", "l2.vram.pressure"}) {
    EXPECT_TRUE(judge_artefact(f, id).empty()) << id;
    EXPECT_NE(find_entry(id), nullptr) << id;
  }
}

TEST(VramRules, HealthySnapshotPasses) {
  Facts f = allocator(10 * GiB, 11 * GiB, 12 * GiB, 0, 0, 80 * GiB);
  EXPECT_EQ(only_status(judge_artefact(f, "l2.vram.summary")), Status::info);
  EXPECT_EQ(only_status(judge_artefact(f, "l2.vram.oom")), Status::pass);
  EXPECT_EQ(only_status(judge_artefact(f, "l2.vram.alloc_retries")), Status::pass);
  EXPECT_EQ(only_status(judge_artefact(f, "l2.vram.fragmentation")), Status::pass);
  EXPECT_EQ(only_status(judge_artefact(f, "l2.vram.pressure")), Status::pass);
  auto s = judge_artefact(f, "l2.vram.summary");
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s.front().subject, "cuda:0");
  EXPECT_EQ(s.front().evidence.front().source, "stats.json");
}

TEST(VramRules, OomsRetriesFragmentationAndPressureFail) {
  // 79 GiB reserved at peak of 80 GiB, 30 GiB of the 70 GiB reserved cached but unallocated.
  Facts f = allocator(40 * GiB, 70 * GiB, 79 * GiB, 3, 5, 80 * GiB);
  auto oom = judge_artefact(f, "l2.vram.oom");
  EXPECT_EQ(only_status(oom), Status::fail);
  ASSERT_FALSE(oom.empty());
  EXPECT_EQ(oom.front().variant, "fragmented");
  EXPECT_EQ(only_status(judge_artefact(f, "l2.vram.alloc_retries")), Status::warn);
  EXPECT_EQ(only_status(judge_artefact(f, "l2.vram.fragmentation")), Status::warn);
  EXPECT_EQ(only_status(judge_artefact(f, "l2.vram.pressure")), Status::warn);
  // The thresholds decide: a looser fragmentation ratio turns the same numbers into a pass.
  Thresholds th;
  th.set("vram.fragmentation_ratio_warn", 0.5);
  EXPECT_EQ(only_status(judge_artefact(f, "l2.vram.fragmentation", th)), Status::pass);
}

TEST(VramRules, UnknownCapacityIsASkipWithTheReason) {
  Facts f = allocator(10 * GiB, 11 * GiB, 12 * GiB, 0, 0, std::nullopt);
  auto p = judge_artefact(f, "l2.vram.pressure");
  EXPECT_EQ(only_status(p), Status::skip);
  ASSERT_FALSE(p.empty());
  EXPECT_NE(p.front().args.at("reason").find("--gpu-memory"), std::string::npos);
}

Facts h5(std::vector<H5Filter> filters) {
  Facts f;
  f.h5.collected = true;
  H5FileLayout l;
  l.file = "train.h5";
  l.library = "libhdf5_serial.so.103 (HDF5 1.10.8)";
  H5Dataset d;
  d.path = "/x";
  d.dtype = "float32 LE";
  d.shape = {4, 4};
  d.layout = "chunked";
  d.chunks = {2, 4};
  d.filters = std::move(filters);
  l.datasets.push_back(d);
  f.h5.files.push_back(l);
  return f;
}

TEST(H5FiltersRule, PortableFiltersPassAndMissingOnesFail) {
  EXPECT_TRUE(judge_artefact(Facts{}, "l3.data.h5_filters").empty());
  EXPECT_EQ(only_status(judge_artefact(h5({{2, "shuffle", {4}, false, true}, {1, "deflate", {1}, false, true}}), "l3.data.h5_filters")),
            Status::pass);
  auto missing = judge_artefact(h5({{32000, "lzf", {}, false, false}}), "l3.data.h5_filters");
  EXPECT_EQ(only_status(missing), Status::fail);
  ASSERT_FALSE(missing.empty());
  EXPECT_EQ(missing.front().variant, "unavailable");
  EXPECT_NE(finding_message(missing.front(), Lang::en).find("lzf"), std::string::npos);
  auto szip = judge_artefact(h5({{4, "szip", {}, false, true}}), "l3.data.h5_filters");
  EXPECT_EQ(only_status(szip), Status::warn);
}

TEST(SnapshotDiffRule, DifferencesFailAndAgreementPasses) {
  Facts f;
  EXPECT_TRUE(judge_artefact(f, "l3.platform.snapshot_diff").empty());
  f.diff.collected = true;
  f.diff.a.file = "a.json";
  f.diff.b.file = "b.json";
  f.diff.identical = {{"os", 3}, {"gpu", 5}};
  auto same = judge_artefact(f, "l3.platform.snapshot_diff");
  EXPECT_EQ(only_status(same), Status::pass);
  f.diff.differences = {{"driver", "gpu.driver_version", "535.161.08", "550.90.12"},
                        {"env", "env.NCCL_P2P_DISABLE", "(unset)", "1"}};
  auto diff = judge_artefact(f, "l3.platform.snapshot_diff");
  EXPECT_EQ(only_status(diff), Status::fail);
  ASSERT_FALSE(diff.empty());
  EXPECT_EQ(diff.front().evidence.size(), 2u);  // one line per group
  EXPECT_NE(finding_message(diff.front(), Lang::en).find("differ in 2 facts"), std::string::npos);
  EXPECT_EQ(finding_verify(diff.front()), "plumb diff a.json b.json");
}

TEST(ArtefactFacts, RoundTripThroughTheSnapshotJson) {
  Facts f = allocator(1, 2, 3, 0, 0, 4);
  Facts g = h5({{1, "deflate", {1}, false, true}});
  f.h5 = g.h5;
  f.topo.collected = true;
  f.topo.groups.push_back({{0, 1}, "GPU0,GPU1", "NV18", "CUDA_VISIBLE_DEVICES=0,1"});
  f.diff.collected = true;
  f.diff.differences.push_back({"os", "host.os.kernel", "5.15", "6.8"});
  json j = f;
  EXPECT_EQ(j.get<Facts>(), f);
}

}  // namespace
}  // namespace plumb
