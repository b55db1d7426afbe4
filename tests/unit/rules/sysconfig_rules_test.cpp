// The name-resolution, open-files, IOMMU, PCIe ACS, GID-index, GPU-process and TF32 rules: each
// planted fault of tests/fixtures/sysconfig/roots/planted is caught, the clean root passes, and
// missing input is a skip that says why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "core/catalog.h"
#include "core/registry.h"
#include "../../test_util.h"

namespace plumb {
namespace {

std::string fake_lib(bool legacy = false) {
  return std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-nvml" + (legacy ? "-legacy" : "") + ".so";
}

Facts collect_root(const std::string& name, bool legacy = false) {
  ::setenv("PLUMB_FAKE_NVML_SCENARIO", test::fixture("sysconfig/nvml-" + name + ".json").c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  Context ctx;
  ctx.root = HostRoot(test::fixture("sysconfig/roots/" + name));
  ctx.pid = 4100;
  ctx.nvml_lib = fake_lib(legacy);
  Facts f;
  for (const char* id : {"collect.names", "collect.process", "collect.network", "collect.iommu", "collect.pci_acs", "collect.ib_gids",
                         "collect.nccl_env", "collect.gpu_processes"}) {
    EXPECT_TRUE(collect_one(ctx, id, f)) << id;
  }
  return f;
}

std::vector<Finding> judge_sysconfig(const Facts& f, const std::string& id, const Thresholds& th = Thresholds{}) {
  Selection sel;
  sel.only = {id};
  return judge(f, th, sel);
}

Status worst(const std::vector<Finding>& v) {
  Status s = Status::pass;
  for (const auto& x : v) s = std::min(s, x.status);
  return s;
}

std::string msgs(const std::vector<Finding>& v) {
  std::string s;
  for (const auto& x : v) s += finding_message(x, Lang::en) + "\n";
  return s;
}

class SysconfigRoots : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    planted_ = new Facts(collect_root("planted"));
    clean_ = new Facts(collect_root("clean"));
  }
  static void TearDownTestSuite() {
    delete planted_;
    delete clean_;
  }
  static Facts* planted_;
  static Facts* clean_;
};
Facts* SysconfigRoots::planted_ = nullptr;
Facts* SysconfigRoots::clean_ = nullptr;

TEST_F(SysconfigRoots, HostnameLoopback) {
  auto bad = judge_sysconfig(*planted_, "l3.comm.hostname_loopback");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].status, Status::fail);
  EXPECT_NE(msgs(bad).find("gpu-node-07 resolves to the loopback address 127.0.1.1 (/etc/hosts line 2)"), std::string::npos)
      << msgs(bad);
  auto good = judge_sysconfig(*clean_, "l3.comm.hostname_loopback");
  EXPECT_EQ(worst(good), Status::pass) << msgs(good);
  EXPECT_NE(msgs(good).find("10.10.0.7"), std::string::npos);
}

TEST_F(SysconfigRoots, OpenFilesLimit) {
  auto bad = judge_sysconfig(*planted_, "l3.data.open_files_limit");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].status, Status::fail);
  EXPECT_NE(msgs(bad).find("open-files soft limit 1024 (hard 4096)"), std::string::npos) << msgs(bad);
  EXPECT_NE(finding_fix(bad[0], Lang::en).find("ulimit -n 4096"), std::string::npos);
  EXPECT_EQ(worst(judge_sysconfig(*clean_, "l3.data.open_files_limit")), Status::pass);
  // Without --pid the limit read is plumb's own: a warning that says so.
  Facts self = *planted_;
  self.host.process.nofile.source = "/proc/self/limits";
  auto own = judge_sysconfig(self, "l3.data.open_files_limit");
  EXPECT_EQ(own[0].status, Status::warn);
  EXPECT_NE(msgs(own).find("plumb itself (pass --pid"), std::string::npos) << msgs(own);
  // A custom threshold moves the line.
  Thresholds th;
  th.set("data.open_files_fail_below", 1000);
  th.set("data.open_files_warn_below", 1024);
  EXPECT_EQ(worst(judge_sysconfig(*planted_, "l3.data.open_files_limit", th)), Status::pass);
}

TEST_F(SysconfigRoots, IommuMode) {
  auto bad = judge_sysconfig(*planted_, "l3.comm.iommu_mode");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].status, Status::warn) << msgs(bad);
  EXPECT_NE(msgs(bad).find("2 GPU/NIC functions sit in translated IOMMU domains"), std::string::npos) << msgs(bad);
  auto good = judge_sysconfig(*clean_, "l3.comm.iommu_mode");
  EXPECT_EQ(worst(good), Status::pass) << msgs(good);
  // Without group types (Linux < 5.11) the command line decides.
  Facts f = *planted_;
  for (auto& d : f.sysconfig.iommu.value->devices) d.type.clear();
  auto cmd = judge_sysconfig(f, "l3.comm.iommu_mode");
  EXPECT_EQ(cmd[0].variant, "translated_cmdline");
  EXPECT_EQ(cmd[0].status, Status::warn);
}

TEST_F(SysconfigRoots, PcieAcs) {
  auto bad = judge_sysconfig(*planted_, "l3.comm.pcie_acs");
  ASSERT_EQ(bad.size(), 3u) << msgs(bad);  // the root port (warn) and both switch downstream ports (fail)
  EXPECT_EQ(worst(bad), Status::fail);
  int fails = 0;
  for (const auto& x : bad) fails += x.status == Status::fail ? 1 : 0;
  EXPECT_EQ(fails, 2);
  EXPECT_NE(msgs(bad).find("switch downstream port 0000:02:08.0 above 0000:03:00.0"), std::string::npos) << msgs(bad);
  EXPECT_NE(msgs(bad).find("ReqRedir+ CmpltRedir+"), std::string::npos);
  auto good = judge_sysconfig(*clean_, "l3.comm.pcie_acs");
  ASSERT_EQ(good.size(), 1u);
  EXPECT_EQ(good[0].status, Status::pass) << msgs(good);
  EXPECT_NE(msgs(good).find("4 bridges"), std::string::npos) << msgs(good);
  // An unprivileged reader sees 64 bytes: a skip that says so.
  Facts f = *clean_;
  for (auto& b : *f.sysconfig.acs.value) {
    b.config_bytes = 64;
    b.has_acs.reset();
    b.acs_ctrl.reset();
  }
  auto skip = judge_sysconfig(f, "l3.comm.pcie_acs");
  ASSERT_EQ(skip.size(), 1u);
  EXPECT_EQ(skip[0].status, Status::skip);
  EXPECT_NE(skip[0].args["reason"].find("readable by root only"), std::string::npos);
  EXPECT_NE(skip[0].args["reason"].find("64 bytes"), std::string::npos);
}

TEST_F(SysconfigRoots, GidIndex) {
  auto bad = judge_sysconfig(*planted_, "l3.comm.ib_gid_index");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].status, Status::fail);
  EXPECT_EQ(bad[0].subject, "mlx5_0:1");
  EXPECT_NE(msgs(bad).find("NCCL_IB_GID_INDEX=5 selects an empty GID entry"), std::string::npos) << msgs(bad);
  EXPECT_NE(msgs(bad).find("index 3 RoCE v2 10.10.0.7 on ens1f0"), std::string::npos) << msgs(bad);
  auto good = judge_sysconfig(*clean_, "l3.comm.ib_gid_index");
  EXPECT_EQ(worst(good), Status::pass) << msgs(good);
  // Index 2 is RoCE v1 while v2 exists; unset on RoCE names the v2 index.
  Facts f = *clean_;
  (*f.comm.env.value)["NCCL_IB_GID_INDEX"] = "2";
  EXPECT_EQ(worst(judge_sysconfig(f, "l3.comm.ib_gid_index")), Status::warn);
  f.comm.env.value->erase("NCCL_IB_GID_INDEX");
  auto unset = judge_sysconfig(f, "l3.comm.ib_gid_index");
  EXPECT_EQ(unset[0].variant, "unset_roce");
  EXPECT_NE(msgs(unset).find("index 3"), std::string::npos);
}

TEST_F(SysconfigRoots, ForeignGpuProcesses) {
  auto bad = judge_sysconfig(*planted_, "l3.vram.foreign_processes");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].status, Status::fail);
  EXPECT_EQ(bad[0].variant, "gone");
  EXPECT_NE(msgs(bad).find("pid 4242 holds 7.6 GiB but no longer exists"), std::string::npos) << msgs(bad);
  EXPECT_EQ(bad[0].evidence.size(), 5u);  // four processes and the NVML call
  auto good = judge_sysconfig(*clean_, "l3.vram.foreign_processes");
  EXPECT_EQ(worst(good), Status::pass) << msgs(good);
  // Without the gone pid the zombie decides, then the other user's process.
  Facts f = *planted_;
  auto& procs = *f.sysconfig.gpu_processes.processes.value;
  procs.erase(procs.begin() + 1);
  EXPECT_EQ(judge_sysconfig(f, "l3.vram.foreign_processes")[0].variant, "zombie");
  procs.erase(procs.begin() + 1);
  auto other = judge_sysconfig(f, "l3.vram.foreign_processes");
  EXPECT_EQ(other[0].status, Status::warn);
  EXPECT_NE(msgs(other).find("jupyter-lab, uid 1001, not uid 1000"), std::string::npos) << msgs(other);
  // In a container's PID namespace host pids are not visible: not a failure.
  Facts ns = *planted_;
  ns.sysconfig.gpu_processes.pid_namespace = true;
  EXPECT_EQ(judge_sysconfig(ns, "l3.vram.foreign_processes")[0].status, Status::skip);
}

TEST_F(SysconfigRoots, ForeignGpuProcessesThroughTheLegacyEntryPoint) {
  Facts f = collect_root("planted", true);
  EXPECT_EQ(f.sysconfig.gpu_processes.nvml_function, "nvmlDeviceGetComputeRunningProcesses");
  ASSERT_TRUE(f.sysconfig.gpu_processes.processes.has());
  EXPECT_EQ(f.sysconfig.gpu_processes.processes->size(), 4u);
  EXPECT_EQ(worst(judge_sysconfig(f, "l3.vram.foreign_processes")), Status::fail);
  EXPECT_EQ(planted_->sysconfig.gpu_processes.nvml_function, "nvmlDeviceGetComputeRunningProcesses_v3");
}

TEST(SysconfigRules, MissingInputsSkipWithReasons) {
  Facts f;
  for (const char* id : {"l3.comm.hostname_loopback", "l3.data.open_files_limit", "l3.comm.iommu_mode", "l3.comm.pcie_acs",
                         "l3.comm.ib_gid_index", "l3.vram.foreign_processes", "l3.framework.tf32"}) {
    auto out = judge_sysconfig(f, id);
    ASSERT_EQ(out.size(), 1u) << id;
    EXPECT_EQ(out[0].status, Status::skip) << id;
    EXPECT_FALSE(out[0].args["reason"].empty()) << id;
    ASSERT_NE(find_entry(id), nullptr) << id;
  }
  Context ctx;
  ctx.root = HostRoot(test::fixture("gpu/root-empty"));
  ctx.nvml_lib = "/nonexistent/libnvidia-ml.so.1";
  Facts none;
  ASSERT_TRUE(collect_one(ctx, "collect.gpu_processes", none));
  auto skip = judge_sysconfig(none, "l3.vram.foreign_processes");
  EXPECT_NE(skip[0].args["reason"].find("libnvidia-ml"), std::string::npos) << skip[0].args["reason"];
}

TEST(SysconfigRules, HostnameVariants) {
  Facts f;
  f.sysconfig.names.hostname = Fact<std::string>::of("node1", "/etc/hostname");
  f.sysconfig.names.hosts = Fact<std::vector<HostsEntry>>::of({{3, "10.0.0.1", {"node1"}}, {4, "127.0.1.1", {"node1"}}}, "/etc/hosts");
  EXPECT_EQ(judge_sysconfig(f, "l3.comm.hostname_loopback")[0].status, Status::warn);
  f.sysconfig.names.hosts = Fact<std::vector<HostsEntry>>::of({}, "/etc/hosts");
  EXPECT_EQ(judge_sysconfig(f, "l3.comm.hostname_loopback")[0].variant, "not_listed");
  // Loopback first: a warning on a single node, a failure once the job spans nodes.
  f.sysconfig.names.hosts = Fact<std::vector<HostsEntry>>::of({{2, "127.0.1.1", {"node1"}}}, "/etc/hosts");
  auto single = judge_sysconfig(f, "l3.comm.hostname_loopback");
  EXPECT_EQ(single[0].status, Status::warn);
  EXPECT_EQ(single[0].variant, "single_node");
  f.host.process.environ = Fact<std::map<std::string, std::string>>::of({{"SLURM_JOB_NUM_NODES", "4"}}, "/proc/7/environ");
  auto multi = judge_sysconfig(f, "l3.comm.hostname_loopback");
  EXPECT_EQ(multi[0].status, Status::fail);
  EXPECT_TRUE(std::any_of(multi[0].evidence.begin(), multi[0].evidence.end(),
                          [](const Evidence& e) { return e.what == "multi-node" && e.value == "SLURM_JOB_NUM_NODES=4"; }));
  f.host.process.environ = Fact<std::map<std::string, std::string>>::of({{"WORLD_SIZE", "16"}, {"LOCAL_WORLD_SIZE", "8"}}, "/proc/7/environ");
  EXPECT_EQ(judge_sysconfig(f, "l3.comm.hostname_loopback")[0].status, Status::fail);
  f.host.process.environ = Fact<std::map<std::string, std::string>>::of({{"WORLD_SIZE", "8"}, {"LOCAL_WORLD_SIZE", "8"}}, "/proc/7/environ");
  EXPECT_EQ(judge_sysconfig(f, "l3.comm.hostname_loopback")[0].status, Status::warn);
  f.sysconfig.names.hostname = Fact<std::string>::of("localhost", "/etc/hostname");
  EXPECT_EQ(judge_sysconfig(f, "l3.comm.hostname_loopback")[0].status, Status::warn);
}

TEST(SysconfigRules, Tf32) {
  Facts f;
  TorchFacts t;
  t.version = "2.5.1+cu124";
  t.cuda = "12.4";
  t.tf32_matmul = false;
  t.tf32_cudnn = true;
  t.float32_matmul_precision = "highest";
  t.devices = {{"NVIDIA A100-SXM4-80GB", "8.0", std::nullopt}};
  f.framework.torch = Fact<TorchFacts>::of(t, "python probe");
  f.host.process.environ = Fact<std::map<std::string, std::string>>::of({}, "/proc/self/environ");
  auto info = judge_sysconfig(f, "l3.framework.tf32");
  EXPECT_EQ(info[0].status, Status::info);
  EXPECT_NE(msgs(info).find("TF32 for convolutions: on, for matmuls: off"), std::string::npos) << msgs(info);
  // Determinism asked for: TF32 convolutions are a warning.
  f.framework.torch.value->deterministic_algorithms = true;
  EXPECT_EQ(judge_sysconfig(f, "l3.framework.tf32")[0].status, Status::warn);
  // NVIDIA_TF32_OVERRIDE=0 wins over torch's switches.
  f.host.process.environ.value->emplace("NVIDIA_TF32_OVERRIDE", "0");
  auto off = judge_sysconfig(f, "l3.framework.tf32");
  EXPECT_EQ(off[0].variant, "forced_off");
  EXPECT_EQ(off[0].status, Status::info);
  // A V100 has no TF32.
  f.host.process.environ.value->clear();
  f.framework.torch.value->devices = {{"Tesla V100-SXM2-32GB", "7.0", std::nullopt}};
  EXPECT_EQ(judge_sysconfig(f, "l3.framework.tf32")[0].variant, "no_tf32_gpu");
}

}  // namespace
}  // namespace plumb
