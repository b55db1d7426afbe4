// GPU rules on hand-built Facts: a passing and a failing case for each rule.
#include <gtest/gtest.h>

#include "collect/gpu_cuda.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/knowledge/xid.h"

namespace plumb {
namespace {

template <class T>
Fact<T> v(T x) {
  return Fact<T>::of(std::move(x), "test");
}

GpuDevice healthy(const std::string& bus) {
  GpuDevice d;
  d.bus_id = bus;
  d.uuid = "GPU-" + bus;
  d.name = "NVIDIA H100 80GB HBM3";
  d.vbios = v<std::string>("96.00.74.00.01");
  d.memory_total = v<std::uint64_t>(80ULL << 30);
  d.memory_used = v<std::uint64_t>(1ULL << 30);
  d.util_gpu = v(0);
  d.temperature_c = v(40);
  d.clocks_event_reasons = v<std::uint64_t>(1);
  d.pcie.gen_current = v(5);
  d.pcie.gen_max = v(5);
  d.pcie.width_current = v(16);
  d.pcie.width_max = v(16);
  d.ecc.enabled = v(true);
  d.ecc.volatile_uncorrected = v<std::uint64_t>(0);
  d.ecc.aggregate_uncorrected = v<std::uint64_t>(0);
  d.mem_health.retired_pending = v(false);
  d.mem_health.retired_single_bit = v(0);
  d.mem_health.retired_double_bit = v(0);
  d.mem_health.remap_pending = v(false);
  d.mem_health.remap_failure = v(false);
  d.mem_health.remapped_uncorrectable = v(0);
  d.persistence_mode = v(true);
  d.mig_enabled = v(false);
  d.processes = v(std::vector<GpuProcess>{});
  return d;
}

Facts node(int n = 2) {
  Facts f;
  f.gpu.collected = true;
  f.gpu.driver_version = v<std::string>("535.183.01");
  f.gpu.cuda_driver_version = v(12020);
  f.gpu.persistenced_running = v(false);
  for (int i = 0; i < n; ++i) f.gpu.devices.push_back(healthy("0000:0" + std::to_string(i) + ":00.0"));
  f.gpu.device_count = v(n);
  return f;
}

// Status of the finding for `subject` (or the host-level one), "" when absent.
std::string gpu_status_of(const Facts& f, const std::string& id, const std::string& subject = "host",
                      Thresholds th = Thresholds()) {
  Selection sel;
  sel.only = {id};
  for (const auto& x : judge(f, th, sel)) {
    if (x.id == id && x.subject == subject) return status_name(x.status);
  }
  return "";
}

TEST(GpuRules, NoDriverSkipsWithTheReason) {
  Facts f;
  f.gpu.collected = true;
  f.gpu.unavailable = "libnvidia-ml.so.1 not found: no NVIDIA driver installed";
  Selection sel;
  sel.only = {"l3.gpu.temperature"};
  auto out = judge(f, Thresholds(), sel);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, Status::skip);
  EXPECT_EQ(out[0].args["reason"], f.gpu.unavailable);
}

TEST(GpuRules, Temperature) {
  Facts f = node();
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.temperature"), "pass");
  f.gpu.devices[0].temperature_c = v(75);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.temperature", "gpu 0000:00:00.0"), "warn");
  f.gpu.devices[0].temp_slowdown_c = v(75);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.temperature", "gpu 0000:00:00.0"), "fail");
  Thresholds th;
  th.set("gpu.temperature_warn_c", 80);
  f.gpu.devices[0].temp_slowdown_c = v(90);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.temperature", "gpu 0000:00:00.0", th), "");  // folded into the pass
}

TEST(GpuRules, ThrottleIdleIsNotAProblem) {
  Facts f = node();
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.throttle"), "pass");
  f.gpu.devices[1].clocks_event_reasons = v<std::uint64_t>(0x80);  // power brake
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.throttle", "gpu 0000:01:00.0"), "fail");
  f.gpu.devices[0].clocks_event_reasons = v<std::uint64_t>(0x4);  // SW power cap while idle
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.throttle", "gpu 0000:00:00.0"), "");
  f.gpu.devices[0].util_gpu = v(90);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.throttle", "gpu 0000:00:00.0"), "warn");
}

TEST(GpuRules, PcieWidthAndGeneration) {
  Facts f = node();
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.pcie_width"), "pass");
  f.gpu.devices[0].pcie.width_current = v(8);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.pcie_width", "gpu 0000:00:00.0"), "fail");
  f.gpu.devices[1].pcie.gen_current = v(1);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.pcie_gen", "gpu 0000:01:00.0"), "");  // idle: downshift is normal
  f.gpu.devices[1].util_gpu = v(95);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.pcie_gen", "gpu 0000:01:00.0"), "warn");
}

TEST(GpuRules, EccRetiredPagesRemappedRows) {
  Facts f = node();
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.ecc_errors"), "pass");
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.retired_pages"), "pass");
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.remapped_rows"), "pass");
  f.gpu.devices[0].ecc.aggregate_uncorrected = v<std::uint64_t>(3);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.ecc_errors", "gpu 0000:00:00.0"), "warn");
  f.gpu.devices[0].ecc.volatile_uncorrected = v<std::uint64_t>(1);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.ecc_errors", "gpu 0000:00:00.0"), "fail");
  f.gpu.devices[1].mem_health.retired_single_bit = v(60);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.retired_pages", "gpu 0000:01:00.0"), "");
  f.gpu.devices[1].mem_health.retired_double_bit = v(3);  // 63: DCGM's limit
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.retired_pages", "gpu 0000:01:00.0"), "fail");
  f.gpu.devices[0].mem_health.remapped_uncorrectable = v(511);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.remapped_rows", "gpu 0000:00:00.0"), "");
  f.gpu.devices[0].mem_health.remapped_uncorrectable = v(512);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.remapped_rows", "gpu 0000:00:00.0"), "fail");
}

TEST(GpuRules, RowRemappingGpusAreNotCalledUncheckedForPageRetirement) {
  // A100/H100/H200: NVML answers NOT_SUPPORTED for page retirement and reads the row remapper.
  Facts f = node();
  for (auto& d : f.gpu.devices) {
    d.mem_health.retired_pending = Fact<bool>::none("NVML_ERROR_NOT_SUPPORTED: not supported by this GPU or driver",
                                                    "nvmlDeviceGetRetiredPagesPendingStatus(gpu " + d.bus_id + ")");
    d.mem_health.retired_single_bit = Fact<int>::none("NVML_ERROR_NOT_SUPPORTED", "test");
    d.mem_health.retired_double_bit = Fact<int>::none("NVML_ERROR_NOT_SUPPORTED", "test");
  }
  Selection sel;
  sel.only = {"l3.gpu.retired_pages"};
  auto all = judge(f, Thresholds(), sel);
  const Finding* r = nullptr;
  for (const auto& x : all) {
    if (x.id == "l3.gpu.retired_pages") r = &x;
  }
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->status, Status::pass);
  EXPECT_EQ(r->variant, "remapping");
  EXPECT_EQ(finding_message(*r, Lang::en), "2 GPUs repair memory by remapping rows, not by retiring pages: judged by l3.gpu.remapped_rows");
  ASSERT_FALSE(r->evidence.empty());
  EXPECT_NE(r->evidence[0].source.find("nvmlDeviceGetRetiredPagesPendingStatus"), std::string::npos);
  // A reason other than NOT_SUPPORTED (a call that failed) stays a skip with that reason.
  f.gpu.devices[0].mem_health.retired_pending = Fact<bool>::none("NVML_ERROR_UNKNOWN", "test");
  f.gpu.devices[1].mem_health.retired_pending = Fact<bool>::none("NVML_ERROR_UNKNOWN", "test");
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.retired_pages"), "skip");
  // Without the remapper's answer nothing says the GPU remaps rows: a skip too.
  f = node();
  for (auto& d : f.gpu.devices) {
    d.mem_health.retired_pending = Fact<bool>::none("NVML_ERROR_NOT_SUPPORTED", "test");
    d.mem_health.retired_double_bit = Fact<int>::none("NVML_ERROR_NOT_SUPPORTED", "test");
    d.mem_health.remap_pending = Fact<bool>::none("NVML_ERROR_NOT_SUPPORTED", "test");
  }
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.retired_pages"), "skip");
}

TEST(GpuRules, PersistenceAcceptsTheDaemon) {
  Facts f = node();
  f.gpu.devices[0].persistence_mode = v(false);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.persistence", "gpu 0000:00:00.0"), "warn");
  f.gpu.persistenced_running = v(true);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.persistence", "gpu 0000:00:00.0"), "");
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.persistence"), "pass");
}

TEST(GpuRules, MemoryAndBusy) {
  Facts f = node();
  EXPECT_EQ(gpu_status_of(f, "l2.gpu.memory_used"), "pass");
  f.gpu.devices[0].memory_used = v<std::uint64_t>(78ULL << 30);  // 97.5 %
  EXPECT_EQ(gpu_status_of(f, "l2.gpu.memory_used", "gpu 0000:00:00.0"), "warn");
  EXPECT_EQ(gpu_status_of(f, "l2.compute.gpu_underutilized"), "pass");
  f.gpu.devices[1].processes = v(std::vector<GpuProcess>{GpuProcess{77, std::nullopt, "python"}});
  f.gpu.devices[1].util_gpu = v(84);
  EXPECT_EQ(gpu_status_of(f, "l2.compute.gpu_underutilized", "gpu 0000:01:00.0"), "warn");
  f.gpu.devices[1].util_gpu = v(85);
  EXPECT_EQ(gpu_status_of(f, "l2.compute.gpu_underutilized", "gpu 0000:01:00.0"), "");
}

TEST(GpuRules, CountMixedMigLost) {
  Facts f = node(4);
  Thresholds th;
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.count", "host", th), "info");
  th.set("gpu.expected_count", 4);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.count", "host", th), "pass");
  f.gpu.devices[2].lost = "nvmlDeviceGetHandleByIndex(2): NVML_ERROR_GPU_IS_LOST";
  f.gpu.devices[2].bus_id.clear();
  f.gpu.devices[2].uuid.clear();
  f.gpu.devices[2].nvml_index = 2;
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.count", "host", th), "fail");
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.device_lost", "gpu #2 (NVML index)"), "fail");
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.mixed"), "pass");
  f.gpu.devices[3].name = "NVIDIA H100 PCIe";
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.mixed"), "warn");
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.mig"), "pass");
  f.gpu.devices[0].mig_enabled = v(true);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.mig", "gpu 0000:00:00.0"), "info");
  Facts none;
  none.gpu.collected = true;
  none.gpu.unavailable = "no driver";
  EXPECT_EQ(gpu_status_of(none, "l3.gpu.count", "host", th), "fail");
}

TEST(GpuRules, StalledNvml) {
  Facts f = node();
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.nvml_responsive"), "pass");
  f.gpu.stalled_call = "nvmlDeviceGetPowerUsage(gpu 0000:01:00.0) did not return within 4000 ms";
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.nvml_responsive"), "fail");
}

CudaLibCopy copy(const std::string& lib, const std::string& path, const std::string& ver, bool pick, int raw = 0) {
  CudaLibCopy c;
  c.lib = lib;
  c.path = c.real_path = path;
  c.version = v(ver);
  if (raw > 0) c.raw_version = v(raw);
  c.loader_pick = pick;
  return c;
}

TEST(GpuRules, DriverTooOldForTheRuntime) {
  Facts f = node();
  f.gpu.cuda.collected = true;
  f.gpu.cuda.copies.push_back(copy("cudart", "/usr/local/cuda-12.1/lib64/libcudart.so.12", "12.1", true, 12010));
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.cuda_driver_compat", "libcudart 12.1"), "pass");
  f.gpu.cuda.copies.push_back(copy("cudart", "/venv/nvidia/cuda_runtime/lib/libcudart.so.12", "12.4.127", false));
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.cuda_driver_compat", "libcudart 12.4"), "warn");
  f.gpu.driver_version = v<std::string>("470.57.02");
  f.gpu.cuda_driver_version = v(11040);
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.cuda_driver_compat", "libcudart 12.1"), "fail");
  f.gpu.cuda.copies.clear();
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.cuda_driver_compat"), "skip");
}

TEST(GpuRules, ToolkitAndDuplicates) {
  Facts f = node();
  f.gpu.cuda.collected = true;
  f.gpu.cuda.toolkit_version = v<std::string>("12.4.1");
  f.gpu.cuda.copies.push_back(copy("cudart", "/a/libcudart.so.12", "12.4", true, 12040));
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.toolkit_runtime"), "pass");
  f.gpu.cuda.toolkit_version = v<std::string>("12.2.0");
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.toolkit_runtime"), "info");
  f.gpu.cuda.toolkit_version = v<std::string>("11.8.0");
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.toolkit_runtime"), "warn");
  f.gpu.cuda.copies.push_back(copy("cudnn", "/a/libcudnn.so.9", "9.1.0", true));
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.lib_duplicates"), "pass");
  f.gpu.cuda.copies.push_back(copy("cudnn", "/venv/libcudnn.so.9", "9.5.1.17", false));
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.lib_duplicates", "cudnn"), "warn");
}

TEST(GpuRules, KernelModuleAndLibcudaAreOneVersion) {
  // /proc/driver/nvidia/version as the proprietary and the open modules write it.
  EXPECT_EQ(parse_nvidia_module_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 "
                                        "01:15:15 UTC 2023\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"),
            "535.104.05");
  EXPECT_EQ(parse_nvidia_module_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release "
                                        "Build  (dvs-builder@U16-I3-C07-1-3)  Thu Jan 23 22:50:36 UTC 2025\n"),
            "570.86.15");
  EXPECT_EQ(parse_nvidia_module_version("GCC version: 12\n"), std::nullopt);
  EXPECT_EQ(parse_nvidia_module_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n"), std::nullopt);

  Facts f = node();
  f.gpu.cuda.collected = true;
  f.gpu.cuda.kernel_module_version = Fact<std::string>::none("No such file or directory", "/proc/driver/nvidia/version");
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.driver_module_version"), "skip");
  f.gpu.cuda.kernel_module_version = Fact<std::string>::of("535.104.05", "/proc/driver/nvidia/version");
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.driver_module_version"), "skip") << "no libcuda found";
  // A toolkit stub carries no driver version and is not compared.
  f.gpu.cuda.copies.push_back(copy("cuda", "/usr/local/cuda/lib64/stubs/libcuda.so", "1", false));
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.driver_module_version"), "skip");
  f.gpu.cuda.copies.push_back(copy("cuda", "/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05", "535.104.05", true));
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.driver_module_version"), "pass");
  f.gpu.cuda.copies.push_back(copy("cuda", "/opt/image/lib/libcuda.so.550.54.15", "550.54.15", false));
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.driver_module_version"), "warn");
  // Upgraded packages, old module still loaded: the loader's libcuda is the new version.
  f.gpu.cuda.kernel_module_version = Fact<std::string>::of("535.86.10", "/proc/driver/nvidia/version");
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.driver_module_version"), "fail");
}

TEST(GpuRules, DeviceQuery) {
  Facts f = node();
  f.gpu.cuda.collected = true;
  f.gpu.cuda.device_query.status = "pass";
  f.gpu.cuda.device_query.devices = {"0000:00:00.0 H100", "0000:01:00.0 H100"};
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.device_query"), "pass");
  f.gpu.cuda.device_query.status = "stub_library";
  EXPECT_EQ(gpu_status_of(f, "l3.gpu.device_query"), "fail");
  Facts none;
  none.gpu.collected = true;
  none.gpu.unavailable = "no driver";
  none.gpu.cuda.collected = true;
  none.gpu.cuda.device_query.status = "no_driver";
  EXPECT_EQ(gpu_status_of(none, "l3.gpu.device_query"), "skip");
}

// A GPU left without a context (another job on it, a Prohibited compute mode) still passes, and the
// finding says which ones were only enumerated and how to try them.
TEST(GpuRules, DeviceQueryNamesTheGpusLeftWithoutAContext) {
  Facts f = node();
  f.gpu.cuda.collected = true;
  CudaDeviceQuery& q = f.gpu.cuda.device_query;
  q.status = "pass";
  q.context_mode = "idle";
  q.devices = {"0000:00:00.0 H100: alloc+copy ok", "0000:01:00.0 H100: no context created (in use by 1 process (4242))"};
  q.contexts_tested = 1;
  q.untested = {"0000:01:00.0: in use by 1 process (4242)"};
  auto judged = [&] {
    Selection sel;
    sel.only = {"l3.gpu.device_query"};
    auto out = judge(f, Thresholds(), sel);
    EXPECT_EQ(out.size(), 1u);
    return out.empty() ? Finding{} : out.front();
  };
  Finding x = judged();
  EXPECT_EQ(x.status, Status::pass);
  EXPECT_EQ(x.variant, "partly");
  EXPECT_EQ(x.args["tested"], "1");
  EXPECT_NE(x.args["untested"].find("in use by 1 process (4242)"), std::string::npos);
  q.contexts_tested = 0;
  q.untested.push_back("0000:00:00.0: --cuda-context never");
  x = judged();
  EXPECT_EQ(x.status, Status::pass);
  EXPECT_EQ(x.variant, "enumerated");
  // A device that failed its allocation fails the check whatever the others did.
  q.status = "error";
  EXPECT_EQ(judged().status, Status::fail);
}

}  // namespace
}  // namespace plumb

namespace plumb {
namespace {

TEST(GpuXid, TableAndJoin) {
  ASSERT_NE(find_xid(79), nullptr);
  EXPECT_STREQ(find_xid(79)->name, "GPU_HAS_FALLEN_OFF_THE_BUS");
  EXPECT_EQ(find_xid(79)->severity, Status::fail);
  EXPECT_TRUE(find_xid(13)->app);
  EXPECT_EQ(find_xid(12345), nullptr);
  GpuFacts g;
  GpuDevice d;
  d.bus_id = "0000:3b:00.0";
  g.devices.push_back(d);
  EXPECT_EQ(gpu_for_xid(g, "0000:3B:00"), &g.devices[0]);
  EXPECT_EQ(gpu_for_xid(g, "PCI:0000:3b:00"), &g.devices[0]);
  EXPECT_EQ(gpu_for_xid(g, "3b:00"), &g.devices[0]);
  EXPECT_EQ(gpu_for_xid(g, "0000:3c:00"), nullptr);
}

// Severity per Xid from the table's documented meaning: fallen off the bus and uncontained or
// uncorrectable ECC fail; contained, recorded-remap and single-bit-rate ECC warn; the usual
// application faults warn with the "app" wording.
TEST(GpuXid, SeverityFollowsTheDocumentedMeaning) {
  for (int code : {79, 48, 64, 95}) EXPECT_EQ(xid_status(code, false), Status::fail) << code;
  for (int code : {63, 92, 94}) EXPECT_EQ(xid_status(code, false), Status::warn) << code;
  for (int code : {13, 31, 43}) {
    EXPECT_EQ(xid_status(code, false), Status::warn) << code;
    EXPECT_TRUE(find_xid(code)->app) << code;
  }
  EXPECT_EQ(xid_status(145, false), Status::warn);  // NVLink5 "Nonfatal"
  EXPECT_EQ(xid_status(149, true), Status::fail);   // NVLink5 "Fatal"
  EXPECT_EQ(xid_status(79, true), Status::fail);
  EXPECT_EQ(xid_status(13, true), Status::warn);    // the word only counts for 144-150
  EXPECT_EQ(xid_status(999, false), Status::warn);  // unknown
}

TEST(GpuXid, TableIsSortedUniqueAndComplete) {
  int last = 0;
  for (const auto& x : xid_table()) {
    EXPECT_GT(x.code, last) << "table must be sorted by code for find_xid";
    last = x.code;
    EXPECT_EQ(find_xid(x.code), &x);
    EXPECT_FALSE(std::string(x.name).empty()) << x.code;
    EXPECT_FALSE(std::string(x.why).empty()) << x.code << " has no reason for its severity";
    EXPECT_FALSE(x.meaning.en.empty() || x.meaning.zh.empty()) << x.code;
    EXPECT_FALSE(x.cause.en.empty() || x.cause.zh.empty()) << x.code;
    EXPECT_FALSE(x.action.en.empty() || x.action.zh.empty()) << x.code;
    EXPECT_TRUE(x.severity == Status::fail || x.severity == Status::warn) << x.code;
    if (x.app) {
      EXPECT_EQ(x.severity, Status::warn) << x.code;
    }
  }
  EXPECT_EQ(xid_table().size(), 42u);
}

Facts xid_facts(std::vector<XidEvents> xids) {
  Facts f;
  f.host.kmsg.collected = true;
  f.host.kmsg.records = Fact<std::uint64_t>::of(100, "/dev/kmsg");
  f.host.kmsg.xids = std::move(xids);
  GpuDevice d = healthy("0000:3b:00.0");
  f.gpu.devices.push_back(d);
  return f;
}

XidEvents xid_event(const std::string& pci, int code, bool fatal = false) {
  XidEvents x;
  x.pci = pci;
  x.code = code;
  x.count = 2;
  x.fatal_word = fatal;
  x.first_time = "[ 1.0]";
  x.last_time = "[ 2.0]";
  x.first_line = "NVRM: Xid (PCI:" + pci + "): " + std::to_string(code) + ", ...";
  return x;
}

std::vector<Finding> judge_only(const std::string& id, const Facts& f) {
  Selection sel;
  sel.only = {id};
  return judge(f, Thresholds(), sel);
}

TEST(GpuXidRule, OneFindingPerGpuAndCodeWithTheTablesSeverity) {
  auto v = judge_only("l3.gpu.xid", xid_facts({xid_event("0000:3b:00", 79), xid_event("0000:3b:00", 94),
                                                 xid_event("0000:38:00", 13), xid_event("0000:38:00", 999),
                                                 xid_event("0019:01:00", 149, true)}));
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v[0].status, Status::fail);
  EXPECT_EQ(v[0].subject, "gpu 0000:3b:00.0");  // joined to the NVML device
  EXPECT_NE(finding_message(v[0], Lang::en).find("fallen off the bus"), std::string::npos);
  EXPECT_NE(finding_message(v[0], Lang::zh).find("掉线"), std::string::npos);
  EXPECT_NE(finding_fix(v[0], Lang::en).find("reboot"), std::string::npos);
  EXPECT_EQ(finding_verify(v[0]), "dmesg -T | grep 'NVRM: Xid (PCI:0000:3b:00'");
  EXPECT_EQ(v[1].status, Status::warn);  // 94 contained
  EXPECT_EQ(v[2].status, Status::warn);
  EXPECT_EQ(v[2].variant, "app");
  EXPECT_EQ(v[2].subject, "gpu 0000:38:00");  // no such NVML device: the PCI id
  EXPECT_NE(finding_message(v[2], Lang::en).find("application"), std::string::npos);
  EXPECT_EQ(v[3].variant, "unknown");
  EXPECT_NE(finding_fix(v[3], Lang::en).find("Xid catalog"), std::string::npos);
  EXPECT_NE(finding_fix(v[3], Lang::zh).find("Xid"), std::string::npos);
  EXPECT_EQ(v[4].status, Status::fail);
  auto clean = judge_only("l3.gpu.xid", xid_facts({}));
  ASSERT_EQ(clean.size(), 1u);
  EXPECT_EQ(clean[0].status, Status::pass);
  EXPECT_NE(finding_message(clean[0], Lang::en).find("100 lines"), std::string::npos);
}

TEST(GpuXidRule, UnreadableOrUncollectedLogSkips) {
  Facts f = xid_facts({});
  f.host.kmsg.records = Fact<std::uint64_t>::none("permission denied: /dev/kmsg: needs CAP_SYSLOG", "/dev/kmsg");
  auto v = judge_only("l3.gpu.xid", f);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, Status::skip);
  EXPECT_NE(finding_message(v[0], Lang::en).find("CAP_SYSLOG"), std::string::npos);
  f.host.kmsg.collected = false;
  EXPECT_EQ(judge_only("l3.gpu.xid", f)[0].status, Status::skip);
}

}  // namespace
}  // namespace plumb
