// End-to-end: `plumb check` against the fake NVML library, one scenario at a time. Each scenario
// plants its problems; the test asserts exactly those are flagged (fail/warn/info) and nothing else.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <tuple>

#include "../test_util.h"

namespace plumb::test {
namespace {

using Flag = std::tuple<std::string, std::string, std::string>;  // id, subject, status

std::string gpu_fake_lib(bool legacy = false) {
  return std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-nvml" + (legacy ? "-legacy" : "") + ".so";
}
std::string gpu_scenario(const std::string& name) { return fixture("gpu/scenarios/" + name + ".json"); }

const std::vector<std::string> kGpuOnly = {"--only", "l3.gpu,l2.gpu,l2.compute.gpu_underutilized"};

RunOutput gpu_check(const std::string& scen, std::vector<std::string> extra = {}, bool legacy = false,
                const std::string& format = "json") {
  std::vector<std::string> args = {"check", "--root", fixture("gpu/root-empty"), "--nvml-lib", gpu_fake_lib(legacy),
                                   "--format", format};
  args.insert(args.end(), kGpuOnly.begin(), kGpuOnly.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return run_plumb(args, {{"PLUMB_FAKE_NVML_SCENARIO", gpu_scenario(scen)}});
}

nlohmann::json parse_gpu_report(const RunOutput& o) {
  auto j = nlohmann::json::parse(o.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << o.err;
  return j;
}

std::set<Flag> flagged(const nlohmann::json& doc) {
  std::set<Flag> out;
  for (const auto& f : doc["findings"]) {
    std::string st = f["status"];
    if (st == "fail" || st == "warn" || (st == "info" && f["id"] != "l3.gpu.count")) {
      out.emplace(f["id"], f["subject"], st);
    }
  }
  return out;
}

std::set<std::string> skipped_ids(const nlohmann::json& doc) {
  std::set<std::string> out;
  for (const auto& f : doc["findings"]) {
    if (f["status"] == "skip") out.insert(f["id"].get<std::string>() + " " + f["args"].value("reason", ""));
  }
  return out;
}

TEST(GpuE2e, HealthyH100NodeFlagsNothing) {
  auto o = gpu_check("h100-8x-healthy");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto doc = parse_gpu_report(o);
  EXPECT_EQ(flagged(doc), std::set<Flag>{});
  EXPECT_EQ(doc["facts"]["gpu"]["devices"].size(), 8u);
  EXPECT_EQ(doc["facts"]["gpu"]["devices"][0]["bus_id"], "0000:53:00.0");
  EXPECT_EQ(doc["facts"]["gpu"]["topology"].size(), 28u);
  // H100 reports no page retirement (row remapping replaced it): said so, not a skip.
  EXPECT_EQ(skipped_ids(doc).count("l3.gpu.retired_pages NVML_ERROR_NOT_SUPPORTED: not supported by this GPU or driver"), 0u);
  bool said = false;
  for (const auto& f : doc["findings"]) {
    if (f["id"] == "l3.gpu.retired_pages") said = f["status"] == "pass" && f["variant"] == "remapping";
  }
  EXPECT_TRUE(said);
}

TEST(GpuE2e, FourGpuPcieNodeAcrossSocketsFlagsNothing) {
  auto o = gpu_check("a100-pcie-4x-2socket");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto doc = parse_gpu_report(o);
  EXPECT_EQ(flagged(doc), std::set<Flag>{});
  int sys = 0;
  for (const auto& t : doc["facts"]["gpu"]["topology"]) sys += t["level"]["value"] == 50 ? 1 : 0;
  EXPECT_EQ(sys, 4);
}

TEST(GpuE2e, HotAndThrottlingGpus) {
  auto o = gpu_check("a100-sxm-4x-hot-throttling");
  EXPECT_EQ(o.exit_code, 1);
  std::set<Flag> want = {{"l3.gpu.temperature", "gpu 0000:0f:00.0", "warn"},
                         {"l3.gpu.temperature", "gpu 0000:47:00.0", "fail"},
                         {"l3.gpu.throttle", "gpu 0000:47:00.0", "fail"},
                         {"l3.gpu.throttle", "gpu 0000:4e:00.0", "warn"}};
  EXPECT_EQ(flagged(parse_gpu_report(o)), want);
}

TEST(GpuE2e, DegradedPcieLinks) {
  auto o = gpu_check("a100-pcie-4x-degraded-link");
  EXPECT_EQ(o.exit_code, 1);
  // GPU 2 idles at gen 1: links downshift when idle, so it is not flagged.
  std::set<Flag> want = {{"l3.gpu.pcie_width", "gpu 0000:17:00.0", "fail"}, {"l3.gpu.pcie_gen", "gpu 0000:65:00.0", "warn"}};
  EXPECT_EQ(flagged(parse_gpu_report(o)), want);
}

TEST(GpuE2e, EccAndRowRemapFailures) {
  auto o = gpu_check("a100-sxm-4x-ecc-remap");
  EXPECT_EQ(o.exit_code, 1);
  std::set<Flag> want = {{"l3.gpu.ecc_errors", "gpu 0000:07:00.0", "fail"},
                         {"l3.gpu.remapped_rows", "gpu 0000:0f:00.0", "fail"},
                         {"l3.gpu.remapped_rows", "gpu 0000:47:00.0", "fail"},
                         {"l3.gpu.remapped_rows", "gpu 0000:4e:00.0", "fail"}};
  auto doc = parse_gpu_report(o);
  EXPECT_EQ(flagged(doc), want);
  std::map<std::string, std::string> variant;
  for (const auto& f : doc["findings"]) {
    if (f["id"] == "l3.gpu.remapped_rows" && f["status"] == "fail") variant[f["subject"]] = f["variant"];
  }
  EXPECT_EQ(variant["gpu 0000:0f:00.0"], "pending");
  EXPECT_EQ(variant["gpu 0000:47:00.0"], "failure");
  EXPECT_EQ(variant["gpu 0000:4e:00.0"], "");  // 600 >= 512 uncorrectable remaps
}

TEST(GpuE2e, LostGpuIsReportedAndTheRestStillChecked) {
  auto o = gpu_check("h100-8x-gpu-lost");
  EXPECT_EQ(o.exit_code, 1);
  auto doc = parse_gpu_report(o);
  std::set<Flag> want = {{"l3.gpu.device_lost", "gpu #3 (NVML index)", "fail"}};
  EXPECT_EQ(flagged(doc), want);
  EXPECT_NE(o.out.find("NVML_ERROR_GPU_IS_LOST"), std::string::npos);
  for (const auto& f : doc["findings"]) {
    if (f["id"] == "l3.gpu.temperature" && f["status"] == "pass") {
      EXPECT_EQ(f["args"]["count"], "7");
    }
  }
}

TEST(GpuE2e, OldDriverUsesTheOldSymbolNames) {
  auto o = gpu_check("v100-2x-legacy-driver", {}, /*legacy=*/true);
  EXPECT_EQ(o.exit_code, 1) << o.err;
  auto doc = parse_gpu_report(o);
  std::set<Flag> want = {{"l3.gpu.retired_pages", "gpu 0000:1b:00.0", "fail"}};
  EXPECT_EQ(flagged(doc), want);
  std::set<std::string> syms;
  for (const auto& s : doc["facts"]["gpu"]["nvml_symbols"]) syms.insert(s);
  EXPECT_TRUE(syms.count("nvmlInit") && syms.count("nvmlDeviceGetCount") && syms.count("nvmlDeviceGetHandleByIndex"));
  EXPECT_TRUE(syms.count("nvmlDeviceGetCurrentClocksThrottleReasons"));
  EXPECT_TRUE(syms.count("nvmlDeviceGetComputeRunningProcesses"));
  EXPECT_FALSE(syms.count("nvmlInit_v2"));
  const auto& dev = doc["facts"]["gpu"]["devices"][0];
  EXPECT_EQ(dev["memory_reserved"]["missing"], "only reported by nvmlDeviceGetMemoryInfo_v2");
  EXPECT_NE(dev["pcie"]["gen_gpu_max"]["missing"].get<std::string>().find("not supported by this driver"), std::string::npos);
}

TEST(GpuE2e, NoPermissionBecomesSkipsWithTheReason) {
  auto o = gpu_check("h100-8x-no-permission");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  auto doc = parse_gpu_report(o);
  EXPECT_EQ(flagged(doc), std::set<Flag>{});
  EXPECT_TRUE(skipped_ids(doc).count("l3.gpu.remapped_rows NVML_ERROR_NO_PERMISSION: no permission"));
  EXPECT_TRUE(skipped_ids(doc).count("l2.compute.gpu_underutilized NVML_ERROR_NO_PERMISSION: no permission"));
}

TEST(GpuE2e, HungCallEndsOnTheDeadlineAndIsNamed) {
  // 3 s: NVML gets four fifths of it; under the sanitizers on a loaded machine 1 s did not always
  // reach the hanging call before the deadline.
  auto o = gpu_check("h100-8x-hang", {"--timeout", "3s"});
  EXPECT_EQ(o.exit_code, 1) << o.err;
  auto doc = parse_gpu_report(o);
  bool named = false;
  for (const auto& f : doc["findings"]) {
    if (f["id"] == "l3.gpu.nvml_responsive") {
      EXPECT_EQ(f["status"], "fail") << f.dump();
      named = f["args"].contains("call") &&
              f["args"]["call"].get<std::string>().find("nvmlDeviceGetPowerUsage(gpu 0000:75:00.0)") != std::string::npos;
    }
  }
  EXPECT_TRUE(named);
  // The two GPUs read before the hang are kept.
  EXPECT_EQ(doc["facts"]["gpu"]["devices"].size(), 2u);
}

TEST(GpuE2e, OperationalWarnings) {
  auto o = gpu_check("a100-sxm-4x-ops");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  std::set<Flag> want = {{"l3.gpu.persistence", "gpu 0000:07:00.0", "warn"},
                         {"l3.gpu.mig", "gpu 0000:0f:00.0", "info"},
                         {"l2.gpu.memory_used", "gpu 0000:47:00.0", "warn"},
                         {"l2.compute.gpu_underutilized", "gpu 0000:4e:00.0", "warn"}};
  EXPECT_EQ(flagged(parse_gpu_report(o)), want);
}

TEST(GpuE2e, MixedModelsAndVbios) {
  auto o = gpu_check("a100-sxm-4x-mixed");
  auto doc = parse_gpu_report(o);
  std::set<Flag> want = {{"l3.gpu.mixed", "host", "warn"}};
  EXPECT_EQ(flagged(doc), want);
  int n = 0;
  for (const auto& f : doc["findings"]) n += (f["id"] == "l3.gpu.mixed" && f["status"] == "warn") ? 1 : 0;
  EXPECT_EQ(n, 2);  // one for the model, one for the VBIOS
}

TEST(GpuE2e, ExpectGpus) {
  auto ok = parse_gpu_report(gpu_check("h100-8x-healthy", {"--expect-gpus", "8"}));
  auto bad = gpu_check("h100-8x-healthy", {"--expect-gpus", "16"});
  EXPECT_EQ(bad.exit_code, 1);
  std::string ok_status, bad_status;
  for (const auto& f : ok["findings"]) {
    if (f["id"] == "l3.gpu.count") ok_status = f["status"];
  }
  auto bad_doc = parse_gpu_report(bad);  // kept: a range-for over a temporary's member would dangle
  for (const auto& f : bad_doc["findings"]) {
    if (f["id"] == "l3.gpu.count") bad_status = f["status"];
  }
  EXPECT_EQ(ok_status, "pass");
  EXPECT_EQ(bad_status, "fail");
  auto neg = gpu_check("h100-8x-healthy", {"--expect-gpus", "-2"});
  EXPECT_EQ(neg.exit_code, 2);
  EXPECT_EQ(std::count(neg.err.begin(), neg.err.end(), '\n'), 1) << neg.err;
  EXPECT_NE(neg.err.find("--expect-gpus"), std::string::npos);
}

TEST(GpuE2e, NoDriverSkipsTheGpuLayerAndChecksTheRest) {
  auto o = run_plumb({"check", "--root", fixture("gpu/root-empty"), "--nvml-lib", "/nonexistent/libnvidia-ml.so.1",
                      "--format", "json"});
  EXPECT_NE(o.exit_code, 2) << o.err;
  auto doc = parse_gpu_report(o);
  EXPECT_NE(doc["facts"]["gpu"]["unavailable"].get<std::string>().find("/nonexistent/libnvidia-ml.so.1 not found"),
            std::string::npos);
  bool os_ran = false;
  for (const auto& c : doc["facts"]["meta"]["collectors"]) os_ran |= c["id"] == "collect.os";
  EXPECT_TRUE(os_ran);
  for (const auto& f : doc["findings"]) {
    std::string id = f["id"];
    if (id.rfind("l3.gpu.", 0) == 0 && id != "l3.gpu.lib_duplicates" && id != "l3.gpu.count") {
      EXPECT_EQ(f["status"], "skip") << id;
    }
  }
}

TEST(GpuE2e, DefaultLibraryMissingSaysNoDriver) {
  auto o = run_plumb({"check", "--root", fixture("gpu/root-empty"), "--only", "l3.gpu.temperature", "--format", "json"},
                     {{"PLUMB_NVML_LIB", ""}});
  auto doc = parse_gpu_report(o);
  std::string why = doc["facts"]["gpu"]["unavailable"];
  if (why.empty()) GTEST_SKIP() << "this machine has an NVIDIA driver";
  EXPECT_EQ(why, "libnvidia-ml.so.1 not found: no NVIDIA driver installed");
}

TEST(GpuE2e, MarkdownInBothLanguagesHasTheGpuTable) {
  auto en = gpu_check("a100-sxm-4x-hot-throttling", {}, false, "md");
  EXPECT_NE(en.out.find("| Bus id | Model |"), std::string::npos) << en.out;
  EXPECT_NE(en.out.find("| 0000:47:00.0 | NVIDIA A100-SXM4-80GB |"), std::string::npos);
  EXPECT_NE(en.out.find("GPU at 90 °C, at its slowdown temperature 89 °C"), std::string::npos);
  EXPECT_NE(en.out.find("- NVIDIA driver: 525.60.13"), std::string::npos);
  auto zh = gpu_check("a100-sxm-4x-hot-throttling", {"--lang", "zh"}, false, "md");
  EXPECT_NE(zh.out.find("| 总线号 | 型号 |"), std::string::npos) << zh.out;
  EXPECT_NE(zh.out.find("已达降频温度 89 °C"), std::string::npos);
  EXPECT_NE(zh.out.find("NVIDIA 驱动: 525.60.13"), std::string::npos);
  auto term = gpu_check("a100-sxm-4x-hot-throttling", {}, false, "term");
  EXPECT_NE(term.out.find("0000:47:00.0  NVIDIA A100-SXM4-80GB"), std::string::npos) << term.out;
}

TEST(GpuE2e, JsonInChineseKeepsIdsAndTranslatesMessages) {
  auto doc = parse_gpu_report(gpu_check("a100-pcie-4x-degraded-link", {"--lang", "zh"}));
  EXPECT_EQ(doc["lang"], "zh-CN");
  bool found = false;
  for (const auto& f : doc["findings"]) {
    if (f["id"] == "l3.gpu.pcie_width" && f["status"] == "fail") {
      found = true;
      EXPECT_EQ(f["message"], "PCIe 链路仅 x8（最大 x16）");
    }
  }
  EXPECT_TRUE(found);
}

TEST(GpuE2e, SnapshotRoundTripsThroughReport) {
  std::string snap = std::string(PLUMB_BUILD_DIR) + "/gpu-e2e-snapshot.json";
  auto o = gpu_check("a100-sxm-4x-ecc-remap", {"--save", snap});
  auto r = run_plumb({"report", snap, "--format", "json", "--only", "l3.gpu,l2.gpu,l2.compute.gpu_underutilized"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(flagged(parse_gpu_report(o)), flagged(parse_gpu_report(r)));
}

// The device query on the live machine through a driver that answers with two GPUs (the fake
// libcuda.so.1, first on LD_LIBRARY_PATH) while NVML lists another process's job on the first:
// by default plumb creates its context, allocation and copy only on the idle GPU and says so;
// `--cuda-context always` tries both.
TEST(GpuE2e, TheDeviceQueryLeavesABusyGpuAlone) {
  const std::string dir = ::testing::TempDir() + "/plumb-e2e-cuda-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir + "/libcuda.so.1");
  std::filesystem::create_symlink(std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-cuda-driver.so", dir + "/libcuda.so.1");
  {
    std::ofstream sc(dir + "/scenario.json");
    sc << R"({"driver_version": "580.105.08", "cuda_driver_version": 13000,
             "device_defaults": {"name": "NVIDIA H200"},
             "devices": [{"bus_id": "00000000:10:00.0", "processes": [{"pid": 999999999, "used_mib": 71680}]},
                         {"bus_id": "00000000:11:00.0", "processes": []}]})";
  }
  const std::string log = dir + "/contexts.log";
  auto run = [&](std::vector<std::string> extra, const std::string& format = "json") {
    std::filesystem::remove(log);
    std::vector<std::string> args = {"check", "--nvml-lib", gpu_fake_lib(), "--only", "l3.gpu.device_query",
                                     "--no-history", "--format", format};
    args.insert(args.end(), extra.begin(), extra.end());
    auto o = run_plumb(args, {{"PLUMB_FAKE_NVML_SCENARIO", dir + "/scenario.json"},
                              {"LD_LIBRARY_PATH", dir},
                              {"FAKE_CUDA_DEVICES", "2"},
                              {"FAKE_CUDA_CONTEXT_LOG", log}});
    std::ifstream in(log);
    std::string contexts((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return std::make_pair(o, contexts);
  };
  auto [o, contexts] = run({});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(contexts, "context 0000:11:00.0\n");
  auto doc = parse_gpu_report(o);
  nlohmann::json x;
  for (const auto& f : doc["findings"]) {
    if (f["id"] == "l3.gpu.device_query") x = f;
  }
  EXPECT_EQ(x["status"], "pass") << x.dump();
  EXPECT_EQ(x["variant"], "partly") << x.dump();
  EXPECT_NE(x["message"].get<std::string>().find("1 of 2 devices"), std::string::npos) << x.dump();
  EXPECT_NE(x["message"].get<std::string>().find("0000:10:00.0: in use by 1 process: pid 999999999 (70 GiB)"),
            std::string::npos)
      << x.dump();
  std::tie(o, contexts) = run({"--cuda-context", "always"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(contexts, "context 0000:10:00.0\ncontext 0000:11:00.0\n");
  std::tie(o, contexts) = run({"--cuda-context", "never", "--lang", "zh-CN"}, "md");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(contexts, "");
  EXPECT_NE(o.out.find("未创建上下文"), std::string::npos) << o.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace plumb::test
