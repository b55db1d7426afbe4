// End to end: `plumb check` with Debian's real torch and a fake GPU interpreter, `plumb diff` of
// the fixture snapshots, `plumb memory` on the corpus samples, and bad input -> exit 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../test_util.h"
#include "core/json.h"

namespace plumb {
namespace {

using test::fixture;
using test::run_plumb;

bool framework_has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

TEST(FrameworkE2E, DebianTorchIsReportedHonestly) {
  // The one real probe of the suite: Debian 12's python3-torch, a CPU-only build (~1-2 s to import).
  if (::access("/usr/bin/python3", X_OK) != 0 || ::access("/usr/lib/python3/dist-packages/torch/__init__.py", R_OK) != 0) {
    GTEST_SKIP() << "Debian's python3-torch is not installed";
  }
  // A generous deadline: importing torch on a loaded CI machine can take several seconds.
  auto r = run_plumb({"check", "--python", "/usr/bin/python3", "--only", "l3.framework", "--format", "md", "--timeout",
                      "60000"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(framework_has(r.out, "- PyTorch: 1.13")) << r.out;
  EXPECT_TRUE(framework_has(r.out, "torch.version.cuda=None, cuda.is_available()=False")) << r.out;
  EXPECT_TRUE(framework_has(r.out, "is a CPU-only build (torch.version.cuda is None): CUDA is not available")) << r.out;
}

TEST(FrameworkE2E, FakeGpuInterpreterInChineseJson) {
  auto r = run_plumb({"check", "--python", fixture("framework/fake_python/gpu-h100"), "--only", "l3.framework",
                      "--format", "json", "--lang", "zh"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(framework_has(r.out, "\"version\": \"2.5.1+cu124\"")) << r.out;
  EXPECT_TRUE(framework_has(r.out, "torch.backends.cudnn.benchmark 为 False")) << r.out;
  EXPECT_TRUE(framework_has(r.out, "python probe (/usr/bin/python3)")) << r.out;  // the recorded sys.executable
}

TEST(FrameworkE2E, MissingInterpreterIsAFactNotAnError) {
  auto r = run_plumb({"check", "--python", "/nonexistent/python9", "--only", "l3.framework"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(framework_has(r.out, "interpreter not found: /nonexistent/python9")) << r.out;
}

TEST(FrameworkE2E, FixtureRootDoesNotRunThisMachinesPython) {
  auto r = run_plumb({"check", "--root", fixture("framework"), "--only", "l3.framework", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(framework_has(r.out, "--root is a fixture tree: pass --python")) << r.out;
}

// A `python3` for PATH in a scratch folder that notes each start (after `delay` seconds) in
// python3.log, then answers like a GPU build of PyTorch.
std::string logging_python_dir(const std::string& name, const std::string& delay) {
  std::string dir = ::testing::TempDir() + "plumb_e2e_" + name + "_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/python3") << "#!/bin/sh\nsleep " << delay << "\necho started >> '" << dir
                                  << "/python3.log'\nexec cat '"
                                  << fixture("framework/probe/gpu-8x-h100-torch2.5-cu124.txt") << "'\n";
  std::filesystem::permissions(dir + "/python3", std::filesystem::perms::owner_all);
  return dir;
}

std::size_t starts_in(const std::string& dir) {
  std::ifstream in(dir + "/python3.log");
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line == "started" ? 1 : 0;
  return n;
}

TEST(FrameworkE2E, TheLiveCheckRunsTheProbeOnce) {
  // python3 on PATH, the live machine, no --only/--skip: the probe's interpreter is python3 on
  // PATH, started once, timed in --timings from within the collection.
  std::string dir = logging_python_dir("probe_once", "0");
  auto r = run_plumb({"check", "--format", "json", "--timings", "--no-history"},
                     {{"PATH", dir + ":/usr/bin:/bin"}, {"PYENV_VERSION", ""}});
  ASSERT_LE(r.exit_code, 1) << r.err;
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out.substr(0, 300);
  EXPECT_EQ(j["facts"]["framework"]["torch"]["value"]["version"], "2.5.1+cu124") << j["facts"]["framework"].dump();
  EXPECT_EQ(j["facts"]["framework"]["python"]["value"]["chosen_by"], "python3 on PATH");
  bool timed = false;
  for (const auto& c : j["facts"]["meta"]["timings"]["collectors"]) {
    if (c["id"] != "collect.python") continue;
    timed = true;
    EXPECT_GE(c["start_ms"].get<double>(), 0.0) << c.dump();
    EXPECT_EQ(c["status"], "ok");
  }
  EXPECT_TRUE(timed) << j["facts"]["meta"]["timings"].dump();
  EXPECT_EQ(starts_in(dir), 1U);
  std::filesystem::remove_all(dir);
}

TEST(FrameworkE2E, NoProbeRunsWhenTheCommandLineFails) {
  std::string dir = logging_python_dir("probe_fail", "0.5");
  auto r = run_plumb({"check", "--format", "nonsense", "--no-history"}, {{"PATH", dir + ":/usr/bin:/bin"}});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(starts_in(dir), 0U);
  std::filesystem::remove_all(dir);
}

TEST(DiffE2E, PlantedDifferencesInReadableOrder) {
  auto r = run_plumb({"diff", fixture("framework/snapshots/a.json"), fixture("framework/snapshots/b.json")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(framework_has(r.out, "12 differences that matter")) << r.out;
  auto os = r.out.find("OS and kernel"), drv = r.out.find("NVIDIA driver"), env = r.out.find("Environment variables"),
       h5 = r.out.find("HDF5 library and filters");
  ASSERT_NE(os, std::string::npos);
  EXPECT_LT(os, drv);
  EXPECT_LT(drv, env);
  EXPECT_LT(env, h5);
  auto md = run_plumb({"diff", fixture("framework/snapshots/a.json"), fixture("framework/snapshots/b.json"), "--format",
                       "md", "--lang", "zh"});
  EXPECT_TRUE(framework_has(md.out, "### 操作系统与内核")) << md.out;
  EXPECT_TRUE(framework_has(md.out, "| gpu.driver_version | `535.161.08` | `550.90.12` |")) << md.out;
  auto js = run_plumb({"diff", fixture("framework/snapshots/a.json"), fixture("framework/snapshots/b.json"), "-f", "json"});
  EXPECT_TRUE(framework_has(js.out, "\"path\": \"env.NCCL_P2P_DISABLE\"")) << js.out;
}

TEST(DiffE2E, IdenticalIsExitZeroAndBadInputIsTwo) {
  auto same = run_plumb({"diff", fixture("framework/snapshots/a.json"), fixture("framework/snapshots/a.json")});
  EXPECT_EQ(same.exit_code, 0);
  EXPECT_TRUE(framework_has(same.out, "No difference")) << same.out;
  auto bad = run_plumb({"diff", fixture("framework/snapshots/a.json"),
                        fixture("framework/memory/fairseq-v100-16gb-oom-58-ooms-66-retries.txt")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(framework_has(bad.err, "not valid JSON")) << bad.err;
  auto missing = run_plumb({"diff", "/nonexistent.json", fixture("framework/snapshots/a.json")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
}

// Two snapshots of this machine two seconds apart: pressure, free memory, RSS and other state move,
// the machine does not, so nothing that matters differs and the exit code is 0.
TEST(DiffE2E, SameLiveMachineTwoSecondsApartIsNoDifference) {
  std::string dir = ::testing::TempDir();
  std::string a = dir + "/plumb_diff_live_a.json", b = dir + "/plumb_diff_live_b.json";
  auto ra = run_plumb({"check", "--save", a, "--format", "json"});
  ASSERT_NE(ra.exit_code, 2) << ra.err;
  sleep(2);
  auto rb = run_plumb({"check", "--save", b, "--format", "json"});
  ASSERT_NE(rb.exit_code, 2) << rb.err;
  auto d = run_plumb({"diff", a, b});
  EXPECT_EQ(d.exit_code, 0) << d.out;
  EXPECT_TRUE(framework_has(d.out, "No difference")) << d.out;
  EXPECT_FALSE(framework_has(d.out, "pressure")) << d.out;
  EXPECT_FALSE(framework_has(d.out, "mem_available")) << d.out;
  auto same = run_plumb({"diff", a, a, "-f", "json"});
  EXPECT_EQ(same.exit_code, 0) << same.out;
  EXPECT_TRUE(framework_has(same.out, "\"differences\": []")) << same.out;
}

TEST(MemoryE2E, FairseqOomStormFailsWithTheRightExplanation) {
  auto r = run_plumb({"memory", fixture("framework/memory/fairseq-v100-16gb-oom-58-ooms-66-retries.txt")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(framework_has(r.out, "58 CUDA out-of-memory errors and 66 cudaMalloc retries")) << r.out;
  EXPECT_TRUE(framework_has(r.out, "memory pressure, not fragmentation")) << r.out;
  EXPECT_TRUE(framework_has(r.out, "CUDA_LAUNCH_BLOCKING=1")) << r.out;
}

TEST(MemoryE2E, HealthySnapshotPassesAndBadInputIsTwo) {
  auto r = run_plumb({"memory", fixture("framework/memory/instructlab-l4-24gb-new-format-requested-oversize.txt"),
                      "--gpu-memory", "22.1GiB", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(framework_has(r.out, "\"format\": \"memory_summary text\"")) << r.out;
  auto bad = run_plumb({"memory", fixture("framework/snapshots/a.json")});
  EXPECT_EQ(bad.exit_code, 2);
  auto size = run_plumb({"memory", fixture("framework/memory/instructlab-l4-24gb-new-format-requested-oversize.txt"),
                         "--gpu-memory", "lots"});
  EXPECT_EQ(size.exit_code, 2);
  EXPECT_TRUE(framework_has(size.err, "--gpu-memory lots: not a size")) << size.err;
}

TEST(H5E2E, NotAnHdf5FileIsExitTwoWithOneLine) {
  auto r = run_plumb({"h5", fixture("framework/snapshots/a.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace plumb
