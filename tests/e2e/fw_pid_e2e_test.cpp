// End to end: `plumb check --root --pid --python` judges the framework's cuDNN/NCCL against the
// copies the job maps (tests/fixtures/fw-pid: /proc/4242/maps of a torch 2.1 job whose
// LD_LIBRARY_PATH brings cuDNN 9.1 and NCCL 2.21).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../test_util.h"

namespace plumb {
namespace {

using test::fixture;
using test::run_plumb;

bool fw_pid_has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

TEST(FrameworkPidE2E, MappedCudnnAndNcclDifferFromTheBuild) {
  auto r = run_plumb({"check", "--root", fixture("fw-pid/root"), "--pid", "4242", "--python", fixture("fw-pid/python"),
                      "--only", "l3.framework.library_mismatch", "--format", "md"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fw_pid_has(r.out, "cuDNN: PyTorch was built with 8.9.2 but 9.1.0 is loaded "
                         "(/usr/local/cuda-12.4/lib64/libcudnn.so.9.1.0)")) << r.out;
  EXPECT_TRUE(fw_pid_has(r.out, "NCCL: PyTorch was built with 2.18.1 but 2.21.5 is loaded "
                         "(/usr/local/cuda-12.4/lib64/libnccl.so.2.21.5)")) << r.out;
  // The wheel's own cuDNN 8 is mapped too and shown as evidence, with its pip version.
  EXPECT_TRUE(fw_pid_has(r.out, "8.9.2.26 at /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.8"))
      << r.out;
  EXPECT_TRUE(fw_pid_has(r.out, "grep -E 'libcudnn|libnccl' /proc/4242/maps")) << r.out;
  auto zh = run_plumb({"check", "--root", fixture("fw-pid/root"), "--pid", "4242", "--python", fixture("fw-pid/python"),
                       "--only", "l3.framework.library_mismatch", "--lang", "zh"});
  EXPECT_TRUE(fw_pid_has(zh.out, "NCCL：PyTorch 构建时使用 2.18.1，实际加载的是 2.21.5")) << zh.out;
}

TEST(FrameworkPidE2E, MatchingBuildPassesAndWithoutPidNcclIsSkipped) {
  // torch 2.5.1 built with cuDNN 9.1.0 and NCCL 2.21.5: the job's NCCL 2.21 agrees...
  auto r = run_plumb({"check", "--root", fixture("fw-pid/root"), "--pid", "4242", "--python",
                      fixture("framework/fake_python/gpu-h100"), "--only", "l3.framework.library_mismatch", "--format",
                      "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fw_pid_has(r.out, "NCCL 2.21.5 (/usr/local/cuda-12.4/lib64/libnccl.so.2.21.5) matches")) << r.out;
  EXPECT_TRUE(fw_pid_has(r.out, "\"status\": \"pass\"")) << r.out;
  // ...but the cuDNN 8 of another wheel is mapped next to the toolkit's cuDNN 9.1: that one differs.
  EXPECT_TRUE(fw_pid_has(r.out, "cuDNN: PyTorch was built with 9.1.0 but 8.9.2.26 is loaded")) << r.out;
  // Without --pid the probe's own interpreter (same LD_LIBRARY_PATH) says which copies it maps.
  auto nopid = run_plumb({"check", "--root", fixture("fw-pid/root"), "--python", fixture("fw-pid/python"), "--only",
                          "l3.framework.library_mismatch"});
  EXPECT_EQ(nopid.exit_code, 0) << nopid.err;
  EXPECT_TRUE(fw_pid_has(nopid.out, "NCCL: PyTorch was built with 2.18.1 but 2.21.5 is loaded "
                             "(/usr/local/cuda-12.4/lib64/libnccl.so.2.21.5 in the probe's interpreter)")) << nopid.out;
  // And an older probe answer without its maps: NCCL cannot be judged.
  auto old = run_plumb({"check", "--root", fixture("fw-pid/root"), "--python", fixture("framework/fake_python/gpu-h100"),
                        "--only", "l3.framework.library_mismatch"});
  EXPECT_TRUE(fw_pid_has(old.out, "NCCL copy loaded by the job: no --pid given")) << old.out;
}

// As root, the framework probe of a process another user owns runs as that user (setpriv), under
// --root as on the live machine: the process's PYTHONPATH is that user's to control.
TEST(FrameworkPidE2E, AnotherUsersProcessIsProbedAsThatUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: plumb runs every probe as its own user otherwise";
  if (::access("/usr/bin/setpriv", X_OK) != 0 && ::access("/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "no setpriv";
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("plumb_fw_uid_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "root/proc/4242");
  fs::copy(fixture("fw-pid/root/proc/4242"), dir / "root/proc/4242", fs::copy_options::overwrite_existing);
  std::ofstream(dir / "root/proc/4242/status") << "Name:\tpython\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nGroups:\t1000\n";
  fs::copy_file(fixture("fw-pid/probe-torch2.1.2-cu121.txt"), dir / "answer.txt");
  std::ofstream(dir / "python") << "#!/bin/sh\nid -u > '" << (dir / "uid").string() << "'\nexec cat '" << (dir / "answer.txt").string() << "'\n";
  fs::permissions(dir, fs::perms::all);
  fs::permissions(dir / "python", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                      fs::perms::others_read | fs::perms::others_exec);
  auto r = run_plumb({"check", "--root", (dir / "root").string(), "--pid", "4242", "--python", (dir / "python").string(),
                      "--only", "l3.framework.library_mismatch", "--format", "json"});
  EXPECT_LE(r.exit_code, 1) << r.err;
  std::string uid;
  std::ifstream(dir / "uid") >> uid;
  EXPECT_EQ(uid, "1000") << r.out.substr(0, 400);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace plumb
