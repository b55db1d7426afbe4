// The CUDA stack: version getters and the device query on fake libraries built from a fixture toolkit's
// headers, the search order on fixture and scratch root trees, /proc/<pid>/maps and environ.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <thread>

#include "collect/gpu_cuda.h"
#include "collect/gpu_processes.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/host_root.h"
#include "vendor/cuda_loader.h"
#include "../../scratch_root.h"
#include "../../test_util.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;

// The fixture toolkit (tests/fixtures/gpu/cuda-12.4-runfile): NVIDIA's runfile/deb layout of CUDA
// 12.4 (lib64 and include link to targets/x86_64-linux; each library as name.so -> name.so.MAJOR ->
// name.so.FULL), cuDNN 9.1.0 and NCCL 2.21.5 installed into it, and a process (pid 4242) that mapped
// libcudart. Its library files are placeholders: what is loaded is tests/helpers/fake_cuda, built from
// the fixture's own headers, so the loaders, the getters and the decoding are tested without a toolkit.
std::string toolkit_root() { return test::fixture("gpu/cuda-12.4-runfile"); }
std::string toolkit_include() { return toolkit_root() + "/usr/local/cuda/include"; }
std::string cuda_fake_lib(const std::string& name) { return std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-" + name + ".so"; }

// The first file of `dir` whose name starts with `prefix` ("" when none).
std::string find_lib(const std::string& dir, const std::string& prefix) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename();
    if (n.rfind(prefix, 0) == 0) return e.path();
  }
  return {};
}

// "#define NAME 123" from a header, -1 when absent.
long header_define(const std::string& header, const std::string& name) {
  auto text = read_user_file(header);
  if (!text) return -1;
  std::smatch m;
  std::regex re("#define\\s+" + name + "\\s+(\\d+)");
  if (!std::regex_search(*text, m, re)) return -1;
  return std::stol(m[1]);
}

std::string dotted(long a, long b, long c) { return std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c); }

TEST(CudaLibVersion, RuntimeVersionMatchesTheHeader) {
  long want = header_define(toolkit_include() + "/cuda_runtime_api.h", "CUDART_VERSION");
  ASSERT_EQ(want, 12040);
  LibVersion v = probe_library_version("cudart", cuda_fake_lib("cudart"));
  ASSERT_TRUE(v.raw) << v.error;
  EXPECT_EQ(*v.raw, want);
  EXPECT_EQ(v.version, "12.4");
}

TEST(CudaLibVersion, CudnnVersionMatchesTheHeader) {
  std::string h = toolkit_include() + "/cudnn_version.h";
  long maj = header_define(h, "CUDNN_MAJOR"), min = header_define(h, "CUDNN_MINOR"), pat = header_define(h, "CUDNN_PATCHLEVEL");
  ASSERT_EQ(maj, 9);
  LibVersion v = probe_library_version("cudnn", cuda_fake_lib("cudnn"));
  ASSERT_TRUE(v.raw) << v.error;
  EXPECT_EQ(*v.raw, 90100);  // cuDNN 9 encodes major * 10000 + minor * 100 + patch
  EXPECT_EQ(v.version, dotted(maj, min, pat));
}

TEST(CudaLibVersion, NcclVersionMatchesTheHeader) {
  std::string h = toolkit_include() + "/nccl.h";
  long maj = header_define(h, "NCCL_MAJOR"), min = header_define(h, "NCCL_MINOR"), pat = header_define(h, "NCCL_PATCH");
  ASSERT_EQ(maj, 2);
  LibVersion v = probe_library_version("nccl", cuda_fake_lib("nccl"));
  ASSERT_TRUE(v.raw) << v.error;
  EXPECT_EQ(*v.raw, header_define(h, "NCCL_VERSION_CODE"));
  EXPECT_EQ(v.version, dotted(maj, min, pat));
}

TEST(CudaLibVersion, AFileThatIsNotALibrarySaysWhy) {
  // The fixture's placeholders are not ELF files: the loader's refusal is the error, never a version.
  LibVersion v = probe_library_version("cudart", toolkit_root() + "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127");
  EXPECT_FALSE(v.raw);
  EXPECT_NE(v.error.find("cannot load"), std::string::npos) << v.error;
  EXPECT_FALSE(probe_library_version("nccl", cuda_fake_lib("cudart")).raw);  // no ncclGetVersion in it
}

DeviceQueryOptions query_options(const std::string& libcuda, const std::string& cudart = {},
                                 CudaContextMode mode = CudaContextMode::idle) {
  DeviceQueryOptions o;
  o.libcuda = libcuda;
  o.cudart = cudart;
  o.context = mode;
  return o;
}

TEST(CudaDeviceQuery, StubLibcudaIsRecognised) {
  CudaDeviceQuery q = run_device_query(query_options(cuda_fake_lib("cuda-stub")));
  EXPECT_EQ(q.status, "stub_library") << q.detail;
  EXPECT_NE(q.detail.find("CUDA_ERROR_STUB_LIBRARY (34)"), std::string::npos);
}

TEST(CudaDeviceQuery, NoDriver) {
  CudaDeviceQuery q = run_device_query(query_options("/nonexistent/libcuda.so.1"));
  EXPECT_EQ(q.status, "no_driver");
  EXPECT_NE(q.detail.find("no NVIDIA driver installed"), std::string::npos);
  EXPECT_FALSE(q.driver_version.has());
}

TEST(CudaDeviceQuery, RuntimeWithoutDriverIsInsufficientDriver) {
  CudaDeviceQuery q = run_device_query(query_options("/nonexistent/libcuda.so.1", cuda_fake_lib("cudart")));
  EXPECT_EQ(q.status, "no_driver");  // the driver's absence is the root cause, not its age
  EXPECT_NE(q.detail.find("cudaGetDeviceCount"), std::string::npos) << q.detail;
}

// The fake driver (tests/helpers/fake_cuda, FAKE_CUDA_DRIVER) with `env` set: devices, compute modes,
// held devices; returns the query and the bus ids it created a context on.
struct DriverRun {
  CudaDeviceQuery q;
  std::vector<std::string> contexts;
};
DriverRun run_fake_driver(const std::vector<std::pair<const char*, std::string>>& env, DeviceQueryOptions o) {
  const std::string log = ::testing::TempDir() + "/plumb-fake-cuda-contexts-" + std::to_string(::getpid());
  std::remove(log.c_str());
  const char* names[] = {"FAKE_CUDA_DEVICES", "FAKE_CUDA_BUS_IDS", "FAKE_CUDA_COMPUTE_MODES", "FAKE_CUDA_HELD",
                         "FAKE_CUDA_ALLOC_FAIL"};
  for (const char* n : names) ::unsetenv(n);  // NOLINT(concurrency-mt-unsafe): tests run on one thread
  for (const auto& [k, v] : env) ::setenv(k, v.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  ::setenv("FAKE_CUDA_CONTEXT_LOG", log.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  o.libcuda = cuda_fake_lib("cuda-driver");
  DriverRun r;
  r.q = run_device_query(o);
  std::ifstream in(log);
  // "context BUS" per context made; any other line (a context released while still current) is
  // kept whole, so the comparisons below fail on it.
  for (std::string line; std::getline(in, line);) {
    r.contexts.push_back(line.rfind("context ", 0) == 0 ? line.substr(8) : line);
  }
  std::remove(log.c_str());
  for (const char* n : names) ::unsetenv(n);  // NOLINT(concurrency-mt-unsafe)
  ::unsetenv("FAKE_CUDA_CONTEXT_LOG");        // NOLINT(concurrency-mt-unsafe)
  return r;
}

TEST(CudaDeviceQuery, IdleGpusGetAContextAnAllocationAndACopy) {
  auto r = run_fake_driver({{"FAKE_CUDA_DEVICES", "2"}}, {});
  EXPECT_EQ(r.q.status, "pass") << r.q.detail;
  EXPECT_EQ(r.q.context_mode, "idle");
  EXPECT_EQ(r.q.contexts_tested, 2);
  EXPECT_TRUE(r.q.untested.empty());
  ASSERT_EQ(r.q.devices.size(), 2u);
  EXPECT_EQ(r.q.devices[0], "0000:10:00.0 NVIDIA H200 sm_90 132 SMs: alloc+copy ok");
  EXPECT_EQ(r.contexts, (std::vector<std::string>{"0000:10:00.0", "0000:11:00.0"}));
  EXPECT_EQ(*r.q.driver_version, 13000);
}

// A GPU another process computes on is only enumerated: no context of plumb's takes its memory
// while a job runs there (a primary context is hundreds of MiB on a current GPU).
TEST(CudaDeviceQuery, ABusyGpuGetsNoContextUnlessAskedFor) {
  DeviceQueryOptions o;
  // The driver spells bus ids in upper case; NVML's map is in sysfs's lower case.
  o.busy = {{"0000:1a:00.0", "1 process: pid 4242 (python3, 70 GiB)"}};
  auto r = run_fake_driver({{"FAKE_CUDA_DEVICES", "2"}, {"FAKE_CUDA_BUS_IDS", "0000:1A:00.0,0000:10:00.0"}}, o);
  EXPECT_EQ(r.q.status, "pass") << r.q.detail;
  EXPECT_EQ(r.contexts, std::vector<std::string>{"0000:10:00.0"});
  EXPECT_EQ(r.q.contexts_tested, 1);
  ASSERT_EQ(r.q.untested.size(), 1u);
  EXPECT_EQ(r.q.untested[0], "0000:1A:00.0: in use by 1 process: pid 4242 (python3, 70 GiB)");
  EXPECT_NE(r.q.devices[0].find(": no context created (in use by"), std::string::npos) << r.q.devices[0];

  o.context = CudaContextMode::always;
  r = run_fake_driver({{"FAKE_CUDA_DEVICES", "2"}, {"FAKE_CUDA_BUS_IDS", "0000:1A:00.0,0000:10:00.0"}}, o);
  EXPECT_EQ(r.q.contexts_tested, 2);
  EXPECT_EQ(r.contexts.size(), 2u);
  EXPECT_EQ(r.q.context_mode, "always");

  o.context = CudaContextMode::never;
  r = run_fake_driver({{"FAKE_CUDA_DEVICES", "2"}}, o);
  EXPECT_EQ(r.q.status, "pass");
  EXPECT_TRUE(r.contexts.empty());
  EXPECT_EQ(r.q.contexts_tested, 0);
  EXPECT_EQ(r.q.untested, (std::vector<std::string>{"0000:10:00.0: --cuda-context never", "0000:11:00.0: --cuda-context never"}));
}

// Compute modes: Prohibited is never tried (the driver refuses every context by design); an
// Exclusive_Process GPU held by another process refuses with CUDA_ERROR_DEVICE_UNAVAILABLE, which
// is the mode working, not a fault; one nobody holds is tried like any other.
TEST(CudaDeviceQuery, ComputeModesThatRefuseAContextAreNoFault) {
  auto r = run_fake_driver({{"FAKE_CUDA_DEVICES", "3"}, {"FAKE_CUDA_COMPUTE_MODES", "2,3,3"}, {"FAKE_CUDA_HELD", "1"}},
                           query_options("", "", CudaContextMode::always));
  EXPECT_EQ(r.q.status, "pass") << r.q.detail;
  EXPECT_EQ(r.contexts, std::vector<std::string>{"0000:12:00.0"});
  ASSERT_EQ(r.q.untested.size(), 2u);
  EXPECT_NE(r.q.untested[0].find("compute mode Prohibited"), std::string::npos) << r.q.untested[0];
  EXPECT_NE(r.q.untested[1].find("Exclusive_Process, held by another process (CUDA_ERROR_DEVICE_UNAVAILABLE)"),
            std::string::npos)
      << r.q.untested[1];
  EXPECT_NE(r.q.devices[2].find("Exclusive_Process: alloc+copy ok"), std::string::npos) << r.q.devices[2];
  // In the default mode the same refusal is a fault: nothing should hold the GPU exclusively.
  r = run_fake_driver({{"FAKE_CUDA_DEVICES", "1"}, {"FAKE_CUDA_ALLOC_FAIL", "0"}}, {});
  EXPECT_EQ(r.q.status, "error");
  EXPECT_NE(r.q.devices[0].find("alloc failed (CUDA_ERROR_OUT_OF_MEMORY)"), std::string::npos) << r.q.devices[0];
}

TEST(CudaDeviceQuery, AnUnknownBusyStateIsSaid) {
  DeviceQueryOptions o;
  o.busy_unknown = "libnvidia-ml.so.1 not found";
  auto r = run_fake_driver({}, o);
  EXPECT_EQ(r.q.contexts_tested, 1);
  EXPECT_NE(r.q.devices[0].find("whether another process used it was unknown: libnvidia-ml.so.1 not found"),
            std::string::npos)
      << r.q.devices[0];
}

// NVML's compute processes by GPU, without plumb's own (the probe is a child of the check).
TEST(CudaBusyGpus, OtherProcessesMakeAGpuBusyPlumbsOwnDoNot) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  const std::string scenario = ::testing::TempDir() + "/plumb-busy-" + std::to_string(::getpid()) + ".json";
  {
    std::ofstream out(scenario);
    out << R"({"driver_version": "580.0", "cuda_driver_version": 13000, "devices": [)"
        << R"({"bus_id": "00000000:1A:00.0", "processes": [{"pid": 999999999, "used_mib": 2048}]},)"
        << R"({"bus_id": "00000000:1B:00.0", "processes": [{"pid": )" << ::getpid() << R"(, "used_mib": 500}]},)"
        << R"({"bus_id": "00000000:1C:00.0", "processes": [{"pid": )" << child << R"(, "used_mib": 500}]},)"
        << R"({"bus_id": "00000000:1D:00.0", "processes": []}]})";
  }
  ::setenv("PLUMB_FAKE_NVML_SCENARIO", scenario.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  Context ctx;
  ctx.nvml_lib = std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-nvml.so";
  BusyGpus b = busy_gpus(ctx);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  std::remove(scenario.c_str());
  EXPECT_EQ(b.unknown, "");
  ASSERT_EQ(b.by_bus.size(), 1u);
  EXPECT_EQ(b.by_bus.begin()->first, "0000:1a:00.0");
  EXPECT_EQ(b.by_bus.begin()->second, "1 process: pid 999999999 (2 GiB)");

  ctx.nvml_lib = "/nonexistent/libnvidia-ml.so.1";
  b = busy_gpus(ctx);
  EXPECT_TRUE(b.by_bus.empty());
  EXPECT_NE(b.unknown.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << b.unknown;
}

// NVML hanging in its process list (a GPU fallen off the bus) costs a share of the deadline, not
// the collector; and no GPU is given a context, since none can be shown idle.
TEST(CudaBusyGpus, AHungNvmlIsLeftBehindAndNoGpuIsTried) {
  const std::string scenario = ::testing::TempDir() + "/plumb-busy-hang-" + std::to_string(::getpid()) + ".json";
  {
    std::ofstream out(scenario);
    out << R"({"driver_version": "580.0", "cuda_driver_version": 13000,
               "devices": [{"bus_id": "00000000:10:00.0", "processes": [],
                            "hang": {"call": "nvmlDeviceGetComputeRunningProcesses", "ms": 1500}}]})";
  }
  ::setenv("PLUMB_FAKE_NVML_SCENARIO", scenario.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  Context ctx;
  ctx.nvml_lib = std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-nvml.so";
  ctx.deadline = std::chrono::milliseconds(800);
  const auto t0 = std::chrono::steady_clock::now();
  BusyGpus b = busy_gpus(ctx);
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_TRUE(b.stalled);
  EXPECT_EQ(b.unknown, "NVML did not answer within 200 ms: whether another process uses it is unknown");
  EXPECT_LT(took, std::chrono::milliseconds(1000));

  DeviceQueryOptions o;
  o.busy_unknown = b.unknown;
  o.busy_stalled = b.stalled;
  auto r = run_fake_driver({}, o);
  EXPECT_EQ(r.q.status, "pass");
  EXPECT_TRUE(r.contexts.empty());
  EXPECT_EQ(r.q.untested, std::vector<std::string>{"0000:10:00.0: " + b.unknown});
  // Outlast the abandoned reader, so that the fake is shut down before the next test's scenario.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  std::remove(scenario.c_str());
}

// Inside a container NVML names processes by the host's pids: plumb's own are found through NSpid
// (the outermost pid first), its descendants' too; a host pid that is not plumb's is another job's.
TEST(CudaBusyGpus, InAContainerPlumbsOwnPidsComeFromNSpid) {
  test::ScratchRoot root("own_pids_namespaced");
  const unsigned me = static_cast<unsigned>(::getpid());
  const unsigned child = me + 100000;  // pids only this tree knows
  const unsigned stranger = me + 100001;
  auto status = [](unsigned ppid, unsigned outer, unsigned inner) {
    return "Name:\tx\nPPid:\t" + std::to_string(ppid) + "\nNSpid:\t" + std::to_string(outer) + "\t" +
           std::to_string(inner) + "\n";
  };
  root.write("proc/self/status", status(0, 900000, me));
  root.write("proc/" + std::to_string(me) + "/status", status(0, 900000, me));
  root.write("proc/" + std::to_string(child) + "/status", status(me, 900001, child));
  root.write("proc/" + std::to_string(stranger) + "/status", status(1, 900002, stranger));
  OwnPids own{HostRoot(root.path())};
  EXPECT_TRUE(own.namespaced());
  EXPECT_TRUE(own.contains(900000));
  EXPECT_TRUE(own.contains(900001));
  EXPECT_FALSE(own.contains(900002));
  EXPECT_FALSE(own.contains(me));  // a pid of this namespace is not what NVML reports here

  // On the host (one NSpid field) the PPid chain decides.
  test::ScratchRoot host("own_pids_host");
  host.write("proc/self/status", "NSpid:\t" + std::to_string(me) + "\n");
  host.write("proc/" + std::to_string(child) + "/status", "PPid:\t" + std::to_string(me) + "\n");
  host.write("proc/" + std::to_string(stranger) + "/status", "PPid:\t1\n");
  OwnPids on_host{HostRoot(host.path())};
  EXPECT_FALSE(on_host.namespaced());
  EXPECT_TRUE(on_host.contains(me));
  EXPECT_TRUE(on_host.contains(child));
  EXPECT_FALSE(on_host.contains(stranger));
  EXPECT_FALSE(on_host.contains(stranger + 1));  // not in /proc at all
}

// NVIDIA's own libraries, where the machine has a toolkit: the one check no fixture can stand in for
// (the real getters answer what the real headers say). Skipped elsewhere; the fixture tests above
// cover the same code paths.
TEST(CudaHostToolkit, RealRuntimeAnswersItsHeaderVersion) {
  const std::string cuda = "/usr/local/cuda";  // the machine's toolkit, on purpose
  std::string lib = find_lib(cuda + "/lib64", "libcudart.so.");
  long want = header_define(cuda + "/include/cuda_runtime_api.h", "CUDART_VERSION");
  if (lib.empty() || want <= 0) GTEST_SKIP() << "needs a CUDA toolkit under /usr/local/cuda (libcudart and its header)";
  LibVersion v = probe_library_version("cudart", lib);
  ASSERT_TRUE(v.raw) << v.error;
  EXPECT_EQ(*v.raw, want);
}

TEST(CudaMaps, RealMapsOfAPythonProcess) {
  // tests/fixtures/gpu/proc-maps-python-cudart13-nccl.txt: /proc/self/maps of python3 after
  // ctypes-loading libcudart.so.13 and libnccl.so.2 (build machine).
  auto paths = parse_proc_maps_paths(test::read_fixture("gpu/proc-maps-python-cudart13-nccl.txt"));
  EXPECT_NE(std::find(paths.begin(), paths.end(), "/usr/local/cuda-13.0/lib/libcudart.so.13"), paths.end());
  EXPECT_NE(std::find(paths.begin(), paths.end(), "/usr/local/cuda-13.0/lib/libnccl.so.2"), paths.end());
  for (const auto& p : paths) EXPECT_EQ(p[0], '/');
  EXPECT_EQ(std::count(paths.begin(), paths.end(), "/usr/local/cuda-13.0/lib/libcudart.so.13"), 1);
  EXPECT_TRUE(parse_proc_maps_paths("garbage\n\n1 2 3\n").empty());
  auto del = parse_proc_maps_paths("7f0-7f1 r-xp 00000000 fe:00 12 /tmp/libnccl.so.2 (deleted)\n");
  EXPECT_EQ(del, std::vector<std::string>{"/tmp/libnccl.so.2"});
}

TEST(CudaMaps, Environ) {
  static const char kEnv[] = "LD_LIBRARY_PATH=/a:/b\0CUDA_HOME=/usr/local/cuda-12.4\0junk\0=x\0";
  std::string env(kEnv, sizeof kEnv - 1);
  auto m = parse_environ(env);
  EXPECT_EQ(m["LD_LIBRARY_PATH"], "/a:/b");
  EXPECT_EQ(m["CUDA_HOME"], "/usr/local/cuda-12.4");
  EXPECT_EQ(m.size(), 2u);
}

// A scratch root tree with files, removed at the end.
class CudaScratchRoot {
 public:
  CudaScratchRoot() {
    char tmpl[] = "/tmp/plumb-cuda-root-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  ~CudaScratchRoot() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  void file(const std::string& abs, const std::string& content = "") {
    fs::create_directories(fs::path(dir_ + abs).parent_path());
    std::ofstream(dir_ + abs) << content;
  }
  void link(const std::string& abs, const std::string& target) {
    fs::create_directories(fs::path(dir_ + abs).parent_path());
    fs::create_symlink(target, dir_ + abs);
  }
  [[nodiscard]] const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

// The driver stack beside the libraries: the kernel module's version, the NVSwitches and whether
// Fabric Manager runs, read under the root.
TEST(CudaSearch, ModuleVersionNvswitchesAndFabricManager) {
  CudaScratchRoot r;
  r.file("/proc/driver/nvidia/version",
         "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n");
  r.file("/sys/bus/pci/devices/0000:05:00.0/vendor", "0x10de\n");
  r.file("/sys/bus/pci/devices/0000:05:00.0/class", "0x068000\n");
  r.file("/sys/bus/pci/devices/0000:18:00.0/vendor", "0x10de\n");
  r.file("/sys/bus/pci/devices/0000:18:00.0/class", "0x030200\n");  // a GPU
  r.file("/sys/bus/pci/devices/0000:00:01.0/vendor", "0x8086\n");
  r.file("/sys/bus/pci/devices/0000:00:01.0/class", "0x068000\n");
  r.file("/proc/77/comm", "sshd\n");
  Context ctx;
  ctx.root = HostRoot(r.dir());
  CudaStackFacts c = read_cuda_stack(ctx);
  ASSERT_TRUE(c.kernel_module_version.has()) << c.kernel_module_version.why();
  EXPECT_EQ(*c.kernel_module_version, "535.104.05");
  ASSERT_TRUE(c.nvswitches.has()) << c.nvswitches.why();
  EXPECT_EQ(*c.nvswitches, std::vector<std::string>{"0000:05:00.0"});
  ASSERT_TRUE(c.fabricmanager_running.has());
  EXPECT_FALSE(*c.fabricmanager_running);
  Facts f;
  f.gpu.cuda = c;
  auto judged = judge(f, Thresholds(), Selection{{"l3.gpu.fabric_manager"}, {}});
  ASSERT_EQ(judged.size(), 1u);
  EXPECT_EQ(judged[0].status, Status::fail);
  EXPECT_NE(finding_message(judged[0], Lang::en).find("error 802"), std::string::npos);
  r.file("/proc/1234/comm", "nv-fabricmanager\n");
  f.gpu.cuda = read_cuda_stack(ctx);
  EXPECT_EQ(judge(f, Thresholds(), Selection{{"l3.gpu.fabric_manager"}, {}})[0].status, Status::pass);
}

TEST(CudaSearch, FindsEveryCopyAndTheLoadersPick) {
  CudaScratchRoot r;
  // A toolkit with version.json, a second cuDNN from a pip wheel, and the process's maps.
  r.file("/usr/local/cuda-12.4/version.json", R"({"cuda":{"name":"CUDA SDK","version":"12.4.1"}})");
  r.file("/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127");
  r.link("/usr/local/cuda-12.4/lib64/libcudart.so.12", "libcudart.so.12.4.127");
  r.file("/usr/local/cuda-12.4/lib64/libcudnn.so.9.1.0");
  r.link("/usr/local/cuda-12.4/lib64/libcudnn.so.9", "libcudnn.so.9.1.0");
  r.file("/usr/local/cuda-12.4/lib64/libcudart_static.a");
  r.file("/opt/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9");
  r.file("/opt/venv/lib/python3.11/site-packages/nvidia_cudnn_cu12-9.5.1.17.dist-info/METADATA");
  static const char kEnv[] = "LD_LIBRARY_PATH=/usr/local/cuda-12.4/lib64\0VIRTUAL_ENV=/opt/venv\0";
  r.file("/proc/4242/environ", std::string(kEnv, sizeof kEnv - 1));
  r.file("/proc/4242/maps",
         "7f64bc400000-7f64bc4a6000 r-xp 00000000 fe:00 337903  /opt/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9\n");
  Context ctx;
  ctx.root = HostRoot(r.dir());
  ctx.pid = 4242;
  CudaStackFacts c = read_cuda_stack(ctx);
  EXPECT_TRUE(c.pid_maps_read);
  ASSERT_TRUE(c.toolkit_version.has()) << c.toolkit_version.why();
  EXPECT_EQ(*c.toolkit_version, "12.4.1");
  std::map<std::string, const CudaLibCopy*> by_path;
  for (const auto& x : c.copies) by_path[x.real_path] = &x;
  ASSERT_EQ(c.copies.size(), 3u) << "static archives and symlinks are not copies";
  const auto* rt = by_path["/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127"];
  ASSERT_NE(rt, nullptr);
  EXPECT_EQ(rt->origin, "LD_LIBRARY_PATH");
  EXPECT_TRUE(rt->loader_pick);
  EXPECT_EQ(*rt->version, "12.4.127");
  const auto* sys_dnn = by_path["/usr/local/cuda-12.4/lib64/libcudnn.so.9.1.0"];
  const auto* pip_dnn = by_path["/opt/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9"];
  ASSERT_TRUE(sys_dnn && pip_dnn);
  EXPECT_TRUE(sys_dnn->loader_pick);
  EXPECT_FALSE(pip_dnn->loader_pick);
  EXPECT_TRUE(pip_dnn->mapped);
  EXPECT_FALSE(sys_dnn->mapped);
  EXPECT_EQ(pip_dnn->origin, "site-packages");
  EXPECT_EQ(*pip_dnn->version, "9.5.1.17");  // from the wheel's dist-info
  EXPECT_EQ(c.device_query.status, "not_run");
}

TEST(CudaSearch, CudnnsVersionComesFromTheRecordOfTheWheelThatInstalledIt) {
  // NVIDIA's redistributable layout (a toolkit with dist-info/), with the real RECORD of the
  // nvidia-cudnn-cu13 wheel: it lists libcudnn.so.9 at 129240 bytes. A second cuDNN in a venv whose
  // RECORD gives another size (the file was replaced) keeps the version of the folder's name.
  const std::string record = test::read_fixture("gpu/pip-record/nvidia_cudnn_cu13-9.19.0.56.RECORD");
  CudaScratchRoot r;
  const std::string tk = "/usr/local/cuda-13.0/lib64/libcudnn.so.9";
  r.file(tk, std::string(129240, 'x'));
  r.file("/usr/local/cuda-13.0/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD", record);
  const std::string venv = "/opt/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9";
  r.file(venv, std::string(1000, 'x'));
  r.file("/opt/venv/lib/python3.11/site-packages/nvidia_cudnn_cu12-9.5.1.17.dist-info/RECORD",
         "nvidia/cudnn/lib/libcudnn.so.9,sha256=AAAA,129240\n");
  static const char kEnv[] = "LD_LIBRARY_PATH=/usr/local/cuda-13.0/lib64\0VIRTUAL_ENV=/opt/venv\0";
  r.file("/proc/4242/environ", std::string(kEnv, sizeof kEnv - 1));
  Context ctx;
  ctx.root = HostRoot(r.dir());
  ctx.pid = 4242;
  CudaStackFacts c = read_cuda_stack(ctx);
  std::map<std::string, const CudaLibCopy*> by_path;
  for (const auto& x : c.copies) by_path[x.real_path] = &x;
  ASSERT_TRUE(by_path.count(tk) && by_path.count(venv));
  const CudaLibCopy& t = *by_path[tk];
  ASSERT_TRUE(t.version.has()) << t.version.why();
  EXPECT_EQ(*t.version, "9.19.0");
  ASSERT_TRUE(t.raw_version.has());
  EXPECT_EQ(*t.raw_version, 91900);
  EXPECT_EQ(t.version.source, "/usr/local/cuda-13.0/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD (it lists "
                              "libcudnn.so.9 at the size of " + tk + ", 129240 bytes)");
  const CudaLibCopy& v = *by_path[venv];
  ASSERT_TRUE(v.version.has());
  EXPECT_EQ(*v.version, "9.5.1.17");
  EXPECT_EQ(v.version.source, "pip metadata next to " + venv);
  EXPECT_FALSE(v.raw_version.has());
}

TEST(CudaSearch, TheRealCudnnsRecordAgreesWithItsOwnGetter) {
  // On a machine with NVIDIA's redistributable toolkit (the CUDA wheels unpacked into
  // /usr/local/cuda, with their dist-info): the version the RECORD gives is what the library says.
  std::string lib;
  for (const char* d : {"/usr/local/cuda/lib64", "/usr/local/cuda/lib"}) {
    if (fs::exists(std::string(d) + "/libcudnn.so.9")) lib = fs::canonical(std::string(d) + "/libcudnn.so.9").string();
  }
  if (lib.empty()) GTEST_SKIP() << "no libcudnn.so.9 under /usr/local/cuda on this machine";
  Context ctx;  // the live machine
  CudaSearchOptions opts;
  opts.device_query = false;
  CudaStackFacts c = read_cuda_stack(ctx, opts);
  const CudaLibCopy* copy = nullptr;
  for (const auto& x : c.copies) {
    if (x.real_path == lib) copy = &x;
  }
  ASSERT_NE(copy, nullptr) << lib << " not found by the search";
  if (copy->version.source.find("/RECORD (it lists libcudnn.so.9") == std::string::npos) {
    GTEST_SKIP() << "no wheel RECORD lists " << lib << " at its size (version from " << copy->version.source << ")";
  }
  LibVersion got = probe_library_version("cudnn", lib);
  ASSERT_TRUE(got.raw) << got.error;
  ASSERT_TRUE(copy->raw_version.has());
  EXPECT_EQ(*copy->raw_version, *got.raw);
  EXPECT_EQ(*copy->version, got.version);
}

TEST(CudaMaps, DeletedMappingsAreFlagged) {
  auto m = parse_proc_maps(
      "7f0-7f1 r-xp 00000000 fe:00 12     /opt/nccl/libnccl.so.2.18.3 (deleted)\n"
      "7f1-7f2 r--p 00001000 fe:00 12     /opt/nccl/libnccl.so.2.18.3 (deleted)\n"
      "7f2-7f3 rw-p 00000000 00:00 0 \n"
      "7f3-7f4 r-xp 00000000 fe:00 13     /lib/libc.so.6\n"
      "7ffd-7ffe rw-p 00000000 00:00 0     [stack]\n");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0], (MappedFile{"/opt/nccl/libnccl.so.2.18.3", true}));
  EXPECT_EQ(m[1], (MappedFile{"/lib/libc.so.6", false}));
  EXPECT_TRUE(parse_proc_maps(std::string("\0\0 / /\n", 7)).empty());
}

TEST(CudaSearch, NcclsVersionComesFromItsRodataWithoutLoadingIt) {
  // The fake NCCL library carries NCCL's version string; under a --root tree nothing is loaded, yet
  // the version is the library's own, not its file name's (which says nothing here).
  std::ifstream in(cuda_fake_lib("nccl"), std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  ASSERT_FALSE(bytes.empty());
  CudaScratchRoot r;
  r.file("/usr/lib/x86_64-linux-gnu/libnccl.so.2", bytes);
  r.file("/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "not an ELF file");
  Context ctx;
  ctx.root = HostRoot(r.dir());
  CudaStackFacts c = read_cuda_stack(ctx);
  std::map<std::string, const CudaLibCopy*> by_lib;
  for (const auto& x : c.copies) by_lib[x.lib] = &x;
  ASSERT_TRUE(by_lib.count("nccl") && by_lib.count("cudnn"));
  const CudaLibCopy& n = *by_lib["nccl"];
  ASSERT_TRUE(n.version.has()) << n.version.why();
  EXPECT_EQ(*n.version, "2.21.5");
  ASSERT_TRUE(n.raw_version.has());
  EXPECT_EQ(*n.raw_version, 22105);
  EXPECT_EQ(n.version.source, "\"NCCL version 2.21.5+cuda12.4\" in the .rodata of /usr/lib/x86_64-linux-gnu/libnccl.so.2");
  // Not an ELF file: the file name's major version, as before.
  ASSERT_TRUE(by_lib["cudnn"]->version.has());
  EXPECT_EQ(by_lib["cudnn"]->version.source, "file name /usr/lib/x86_64-linux-gnu/libcudnn.so.9");
}

TEST(CudaSearch, AsRootAnNvccOthersCanChangeIsNotRun) {
  if (::geteuid() != 0) GTEST_SKIP() << "the refusal applies to plumb running as root; this test runs as uid " << ::geteuid();
  // CUDA_HOME names a toolkit with no version file: only its nvcc could say. It notes each run.
  CudaScratchRoot r;
  const std::string home = r.dir() + "/toolkit";
  const std::string nvcc = home + "/bin/nvcc";
  const std::string ran = r.dir() + "/nvcc-ran";
  r.file("/toolkit/bin/nvcc", "#!/bin/sh\ntouch '" + ran + "'\necho 'Cuda compilation tools, release 99.9, V99.9.1'\n");
  ASSERT_EQ(::chmod(r.dir().c_str(), 0755), 0);
  const char* old = std::getenv("CUDA_HOME");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("CUDA_HOME", home.c_str(), 1);
  Context ctx;  // the live machine: plumb's own environment names the toolkit
  CudaSearchOptions opts;
  opts.probe_versions = false;
  opts.device_query = false;
  ASSERT_EQ(::chmod(nvcc.c_str(), 0777), 0);  // anyone may rewrite it
  CudaStackFacts c = read_cuda_stack(ctx, opts);
  EXPECT_FALSE(fs::exists(ran)) << "an nvcc anyone can change was run as root";
  EXPECT_FALSE(c.toolkit_version.has() && *c.toolkit_version == "99.9.1");
  if (!c.toolkit_version.has()) {
    EXPECT_NE(c.toolkit_version.why().find(nvcc + " --version not run: " + nvcc + " is writable by everyone"), std::string::npos)
        << c.toolkit_version.why();
  }
  ASSERT_EQ(::chmod(nvcc.c_str(), 0755), 0);  // root's own, in root's folders: run
  c = read_cuda_stack(ctx, opts);
  EXPECT_TRUE(fs::exists(ran));
  ASSERT_TRUE(c.toolkit_version.has()) << c.toolkit_version.why();
  EXPECT_EQ(*c.toolkit_version, "99.9.1");
  EXPECT_EQ(c.toolkit_version.source, nvcc + " --version");
  if (old != nullptr) {
    ::setenv("CUDA_HOME", saved.c_str(), 1);
  } else {
    ::unsetenv("CUDA_HOME");
  }
}

TEST(CudaSearch, NoPidOrUnreadableMapsSayWhy) {
  CudaScratchRoot r;
  r.file("/usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5");
  Context ctx;
  ctx.root = HostRoot(r.dir());
  CudaStackFacts c = read_cuda_stack(ctx);
  EXPECT_FALSE(c.pid_maps_read);
  EXPECT_EQ(c.pid_maps_why, "no --pid given");
  ctx.pid = 77;
  c = read_cuda_stack(ctx);
  EXPECT_FALSE(c.pid_maps_read);
  EXPECT_EQ(c.pid, 77);
  EXPECT_NE(c.pid_maps_why.find("/proc/77/maps"), std::string::npos) << c.pid_maps_why;
}

TEST(CudaSearch, AReplacedLibraryIsTheDeletedCopyNotTheNewFile) {
  // The job mapped NCCL 2.18.3; since then the file at that path was replaced by 2.21.5.
  CudaScratchRoot r;
  r.file("/opt/nccl/lib/libnccl.so.2.18.3");
  r.file("/proc/4242/maps",
         "7f64b0c00000-7f64bc0e1000 r-xp 00000000 fe:00 337937      /opt/nccl/lib/libnccl.so.2.18.3 (deleted)\n");
  Context ctx;
  ctx.root = HostRoot(r.dir());
  ctx.pid = 4242;
  CudaStackFacts c = read_cuda_stack(ctx);
  ASSERT_TRUE(c.pid_maps_read);
  ASSERT_EQ(c.copies.size(), 1u) << "the new file is not scanned here (no search path names /opt/nccl)";
  EXPECT_EQ(c.copies[0].origin, "process maps (deleted)");
  EXPECT_TRUE(c.copies[0].mapped);
  EXPECT_FALSE(c.copies[0].loader_pick);
  EXPECT_EQ(*c.copies[0].version, "2.18.3");
  EXPECT_EQ(c.copies[0].version.source, "file name /opt/nccl/lib/libnccl.so.2.18.3");
}

TEST(CudaSearch, RelativeRootStillMatchesTheMappedCopies) {
  // `--root some/dir`: realpath() answers absolute paths, which must still be seen as inside the root.
  CudaScratchRoot r;
  r.file("/usr/local/cuda-12.4/lib64/libnccl.so.2.21.5");
  r.file("/proc/4242/maps", "7f0-7f1 r-xp 00000000 fe:00 12     /usr/local/cuda-12.4/lib64/libnccl.so.2.21.5\n");
  Context ctx;
  ctx.root = HostRoot(fs::relative(r.dir()).string());
  ctx.pid = 4242;
  CudaStackFacts c = read_cuda_stack(ctx);
  ASSERT_EQ(c.copies.size(), 1u);
  EXPECT_EQ(c.copies[0].real_path, "/usr/local/cuda-12.4/lib64/libnccl.so.2.21.5");
  EXPECT_TRUE(c.copies[0].mapped);
}

TEST(CudaSearch, EmptyRootFindsNothing) {
  Context ctx;
  ctx.root = HostRoot(test::fixture("gpu/root-empty"));
  CudaStackFacts c = read_cuda_stack(ctx);
  EXPECT_TRUE(c.collected);
  EXPECT_TRUE(c.copies.empty());
  EXPECT_FALSE(c.toolkit_version.has());
}

TEST(CudaSearch, FixtureToolkitGivesEachLibraryOnceWithItsHeaderVersion) {
  Context ctx;
  ctx.root = HostRoot(toolkit_root());
  ctx.pid = 4242;  // LD_LIBRARY_PATH=/usr/local/cuda/lib64, libcudart mapped
  CudaStackFacts c = read_cuda_stack(ctx);
  ASSERT_TRUE(c.toolkit_version.has()) << c.toolkit_version.why();
  EXPECT_EQ(*c.toolkit_version, "12.4.1");
  EXPECT_EQ(c.toolkit_version.source, "/usr/local/cuda/version.json");
  ASSERT_TRUE(c.pid_maps_read) << c.pid_maps_why;
  // Three names and two directory links per library are one file; the static archive and the
  // stub under lib64/stubs are not copies.
  std::map<std::string, const CudaLibCopy*> by_lib;
  for (const auto& x : c.copies) {
    EXPECT_TRUE(by_lib.emplace(x.lib, &x).second) << "second copy of " << x.lib << ": " << x.real_path;
  }
  ASSERT_EQ(c.copies.size(), 4u);
  const std::string lib = "/usr/local/cuda-12.4/targets/x86_64-linux/lib/";
  const std::string inc = toolkit_include();
  ASSERT_TRUE(by_lib.count("cudart") && by_lib.count("cudnn") && by_lib.count("nccl") && by_lib.count("cublas"));
  const CudaLibCopy& rt = *by_lib["cudart"];
  EXPECT_EQ(rt.real_path, lib + "libcudart.so.12.4.127");
  EXPECT_EQ(rt.origin, "LD_LIBRARY_PATH");
  EXPECT_TRUE(rt.loader_pick);
  EXPECT_TRUE(rt.mapped);
  ASSERT_TRUE(rt.version.has()) << rt.version.why();
  EXPECT_EQ(*rt.version, "12.4.127");
  EXPECT_EQ(rt.version.source, "file name " + rt.real_path);
  long cudart = header_define(inc + "/cuda_runtime_api.h", "CUDART_VERSION");
  EXPECT_EQ(rt.version->rfind(std::to_string(cudart / 1000) + "." + std::to_string(cudart % 1000 / 10) + ".", 0), 0u);
  const std::string dnn_h = inc + "/cudnn_version.h";
  ASSERT_TRUE(by_lib["cudnn"]->version.has());
  EXPECT_EQ(*by_lib["cudnn"]->version,
            dotted(header_define(dnn_h, "CUDNN_MAJOR"), header_define(dnn_h, "CUDNN_MINOR"), header_define(dnn_h, "CUDNN_PATCHLEVEL")));
  EXPECT_FALSE(by_lib["cudnn"]->mapped);
  const std::string nccl_h = inc + "/nccl.h";
  ASSERT_TRUE(by_lib["nccl"]->version.has());
  EXPECT_EQ(*by_lib["nccl"]->version,
            dotted(header_define(nccl_h, "NCCL_MAJOR"), header_define(nccl_h, "NCCL_MINOR"), header_define(nccl_h, "NCCL_PATCH")));
  ASSERT_TRUE(by_lib["cublas"]->version.has());
  EXPECT_EQ(*by_lib["cublas"]->version, "12.4.5.8");
  EXPECT_EQ(c.device_query.status, "not_run");  // never against a --root tree
}

}  // namespace
}  // namespace plumb
