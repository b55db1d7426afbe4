// The CUDA stack: real libraries under /usr/local/cuda when present (versions checked against the
// toolkit's own headers), the search order on a built root tree, /proc/<pid>/maps and environ.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "collect/gpu_cuda.h"
#include "core/host_root.h"
#include "vendor/cuda_loader.h"
#include "../../test_util.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;

const char* kCuda = "/usr/local/cuda";

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

TEST(CudaRealLibs, RuntimeVersionMatchesTheHeader) {
  std::string lib = find_lib(std::string(kCuda) + "/lib64", "libcudart.so.");
  if (lib.empty()) GTEST_SKIP() << "no libcudart under /usr/local/cuda/lib64";
  long want = header_define(std::string(kCuda) + "/include/cuda_runtime_api.h", "CUDART_VERSION");
  LibVersion v = probe_library_version("cudart", lib);
  ASSERT_TRUE(v.raw) << v.error;
  if (want > 0) {
    EXPECT_EQ(*v.raw, want);
  }
  EXPECT_EQ(v.version, std::to_string(*v.raw / 1000) + "." + std::to_string((*v.raw % 1000) / 10));
}

TEST(CudaRealLibs, CudnnVersionMatchesTheHeader) {
  std::string lib = find_lib(std::string(kCuda) + "/lib64", "libcudnn.so.");
  if (lib.empty()) GTEST_SKIP() << "no cuDNN under /usr/local/cuda/lib64";
  std::string h = std::string(kCuda) + "/include/cudnn_version.h";
  long maj = header_define(h, "CUDNN_MAJOR"), min = header_define(h, "CUDNN_MINOR"), pat = header_define(h, "CUDNN_PATCHLEVEL");
  LibVersion v = probe_library_version("cudnn", lib);
  ASSERT_TRUE(v.raw) << v.error;
  if (maj > 0) {
    EXPECT_EQ(v.version, std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(pat));
  }
}

TEST(CudaRealLibs, NcclVersionMatchesTheHeader) {
  std::string lib = find_lib(std::string(kCuda) + "/lib64", "libnccl.so.");
  if (lib.empty()) GTEST_SKIP() << "no NCCL under /usr/local/cuda/lib64";
  std::string h = std::string(kCuda) + "/include/nccl.h";
  long maj = header_define(h, "NCCL_MAJOR"), min = header_define(h, "NCCL_MINOR"), pat = header_define(h, "NCCL_PATCH");
  LibVersion v = probe_library_version("nccl", lib);
  ASSERT_TRUE(v.raw) << v.error;
  if (maj > 0) {
    EXPECT_EQ(v.version, std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(pat));
  }
}

TEST(CudaRealLibs, StubLibcudaIsRecognised) {
  std::string stub = std::string(kCuda) + "/lib64/stubs/libcuda.so";
  if (::access(stub.c_str(), R_OK) != 0) GTEST_SKIP() << "no libcuda stub under /usr/local/cuda/lib64/stubs";
  CudaDeviceQuery q = run_device_query(stub);
  EXPECT_EQ(q.status, "stub_library") << q.detail;
  EXPECT_NE(q.detail.find("CUDA_ERROR_STUB_LIBRARY (34)"), std::string::npos);
}

TEST(CudaDeviceQuery, NoDriver) {
  CudaDeviceQuery q = run_device_query("/nonexistent/libcuda.so.1");
  EXPECT_EQ(q.status, "no_driver");
  EXPECT_NE(q.detail.find("no NVIDIA driver installed"), std::string::npos);
  EXPECT_FALSE(q.driver_version.has());
}

TEST(CudaDeviceQuery, RuntimeWithoutDriverIsInsufficientDriver) {
  std::string rt = find_lib(std::string(kCuda) + "/lib64", "libcudart.so.");
  if (rt.empty()) GTEST_SKIP() << "no libcudart under /usr/local/cuda/lib64";
  CudaDeviceQuery q = run_device_query("/nonexistent/libcuda.so.1", rt);
  EXPECT_EQ(q.status, "no_driver");  // the driver's absence is the root cause, not its age
  EXPECT_NE(q.detail.find("cudaGetDeviceCount"), std::string::npos) << q.detail;
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
class ScratchRoot {
 public:
  ScratchRoot() {
    char tmpl[] = "/tmp/plumb-cuda-root-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  ~ScratchRoot() {
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

TEST(CudaSearch, FindsEveryCopyAndTheLoadersPick) {
  ScratchRoot r;
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
  EXPECT_TRUE(parse_proc_maps(std::string("\0\0 / /\n", 8)).empty());
}

TEST(CudaSearch, NoPidOrUnreadableMapsSayWhy) {
  ScratchRoot r;
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
  ScratchRoot r;
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
  ScratchRoot r;
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

TEST(CudaSearch, LiveMachineFindsTheToolkitLibraries) {
  if (::access("/usr/local/cuda/lib64", R_OK) != 0) GTEST_SKIP() << "no /usr/local/cuda";
  Context ctx;
  CudaSearchOptions o;
  o.device_query = false;
  CudaStackFacts c = read_cuda_stack(ctx, o);
  bool rt = false;
  for (const auto& x : c.copies) {
    if (x.lib == "cudart" && x.real_path.rfind("/usr/local/cuda", 0) == 0) rt = x.version.has() && x.raw_version.has();
  }
  EXPECT_TRUE(rt);
}

}  // namespace
}  // namespace plumb
