// End-to-end: `plumb check` on the planted and clean roots of tests/fixtures/sysconfig, with the
// fake NVML reporting the GPU's processes: each planted defect (hostname on 127.0.1.1, open-files
// limit 1024, translated IOMMU domains, ACS redirect on the switch ports, NCCL_IB_GID_INDEX on an
// empty entry, GPU memory of a gone pid, TF32 under a determinism request) fails or warns on one
// root and passes on the other.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>

#include "core/json.h"
#include "../test_util.h"

namespace plumb {
namespace {

using test::fixture;
using test::run_plumb;

const char* kIds =
    "l3.comm.hostname_loopback,l3.data.open_files_limit,l3.comm.iommu_mode,l3.comm.pcie_acs,l3.comm.ib_gid_index,"
    "l3.vram.foreign_processes,l3.framework.tf32";

RunOutput sysconfig_check(const std::string& root, const std::string& format = "json") {
  std::string lib = std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-nvml.so";
  return run_plumb({"check", "--root", fixture("sysconfig/roots/" + root), "--pid", "4100", "--nvml-lib", lib, "--only",
                    kIds, "--config", fixture("sysconfig/determinism.toml"), "--format", format},
                   {{"PLUMB_FAKE_NVML_SCENARIO", fixture("sysconfig/nvml-" + root + ".json")}});
}

std::map<std::string, std::string> worst_by_id(const RunOutput& r) {
  static const std::map<std::string, int> rank{{"fail", 0}, {"warn", 1}, {"skip", 2}, {"info", 3}, {"pass", 4}};
  json j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out.substr(0, 300) << r.err;
  std::map<std::string, std::string> out;
  if (j.is_discarded()) return out;
  for (const auto& f : j.at("findings")) {
    std::string id = f.at("id");
    std::string st = f.at("status");
    if (!out.count(id) || rank.at(st) < rank.at(out[id])) out[id] = st;
  }
  return out;
}

TEST(SysconfigE2e, PlantedRootFailsEveryCheck) {
  auto r = sysconfig_check("planted");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto st = worst_by_id(r);
  EXPECT_EQ(st["l3.comm.hostname_loopback"], "fail");
  EXPECT_EQ(st["l3.data.open_files_limit"], "fail");
  EXPECT_EQ(st["l3.comm.iommu_mode"], "warn");
  EXPECT_EQ(st["l3.comm.pcie_acs"], "fail");
  EXPECT_EQ(st["l3.comm.ib_gid_index"], "fail");
  EXPECT_EQ(st["l3.vram.foreign_processes"], "fail");
  EXPECT_EQ(st["l3.framework.tf32"], "warn");
}

TEST(SysconfigE2e, CleanRootPasses) {
  auto r = sysconfig_check("clean");
  EXPECT_EQ(r.exit_code, 0) << r.out.substr(0, 3000) << r.err;
  auto st = worst_by_id(r);
  for (const char* id : {"l3.comm.hostname_loopback", "l3.data.open_files_limit", "l3.comm.iommu_mode", "l3.comm.pcie_acs",
                         "l3.comm.ib_gid_index", "l3.vram.foreign_processes"}) {
    EXPECT_EQ(st[id], "pass") << id;
  }
  EXPECT_EQ(st["l3.framework.tf32"], "info");  // NVIDIA_TF32_OVERRIDE=0: TF32 off everywhere
}

TEST(SysconfigE2e, TextReportInBothLanguages) {
  auto en = sysconfig_check("planted", "term");
  EXPECT_NE(en.out.find("gpu-node-07 resolves to the loopback address 127.0.1.1"), std::string::npos) << en.out;
  EXPECT_NE(en.out.find("NCCL_IB_GID_INDEX=5 selects an empty GID entry"), std::string::npos);
  EXPECT_NE(en.out.find("pid 4242 holds 7.6 GiB but no longer exists"), std::string::npos);
  std::string lib = std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-nvml.so";
  auto zh = run_plumb({"check", "--root", fixture("sysconfig/roots/planted"), "--pid", "4100", "--nvml-lib", lib, "--only",
                       kIds, "--lang", "zh"},
                      {{"PLUMB_FAKE_NVML_SCENARIO", fixture("sysconfig/nvml-planted.json")}});
  EXPECT_EQ(zh.exit_code, 1) << zh.err;
  EXPECT_NE(zh.out.find("解析为回环地址 127.0.1.1"), std::string::npos) << zh.out;
  EXPECT_NE(zh.out.find("ACS"), std::string::npos);
}


// The new facts survive a snapshot: `plumb report` judges the saved file to the same findings.
TEST(SysconfigE2e, SnapshotJudgedAgainGivesTheSameFindings) {
  std::string snap = ::testing::TempDir() + "/sysconfig-snap-" + std::to_string(::getpid()) + ".json";
  std::string lib = std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-nvml.so";
  auto live = run_plumb({"check", "--root", fixture("sysconfig/roots/planted"), "--pid", "4100", "--nvml-lib", lib, "--only", kIds,
                         "--format", "json", "--save", snap},
                        {{"PLUMB_FAKE_NVML_SCENARIO", fixture("sysconfig/nvml-planted.json")}});
  auto again = run_plumb({"report", snap, "--only", kIds, "--format", "json"});
  std::remove(snap.c_str());
  EXPECT_EQ(again.exit_code, live.exit_code) << again.err;
  json a = json::parse(live.out, nullptr, false);
  json b = json::parse(again.out, nullptr, false);
  ASSERT_FALSE(a.is_discarded() || b.is_discarded()) << live.err << again.err;
  EXPECT_EQ(a.at("findings"), b.at("findings"));
  EXPECT_EQ(a.at("facts").at("sysconfig"), b.at("facts").at("sysconfig"));
  EXPECT_EQ(a.at("facts").at("sysconfig").at("acs").at("value").size(), 4u);
}

}  // namespace
}  // namespace plumb
