// The toolkit version of NVIDIA's redistributable layout (no version.json, pip dist-info folders in
// the toolkit) comes from the nvcc wheel's dist-info name, so the check starts no nvcc.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "collect/gpu_cuda.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;

struct TempTree {
  std::string dir;
  TempTree() {
    char tmpl[] = "/tmp/plumb-toolkit-XXXXXX";
    dir = ::mkdtemp(tmpl);
  }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

TEST(CudaToolkitDistInfo, NvccWheelNamesTheVersion) {
  TempTree t;
  std::string home = t.dir + "/usr/local/cuda-13.0";
  fs::create_directories(home + "/dist-info/nvidia_cublas-13.1.0.3.dist-info");
  fs::create_directories(home + "/dist-info/nvidia_cuda_nvcc-13.0.88.dist-info");
  fs::create_directories(home + "/bin");
  std::ofstream(home + "/bin/nvcc") << "#!/bin/false\n";  // never started: the tree is not live
  fs::create_directory_symlink("cuda-13.0", t.dir + "/usr/local/cuda");
  Context ctx;
  ctx.root = HostRoot(t.dir);
  CudaStackFacts c = read_cuda_stack(ctx);
  ASSERT_TRUE(c.toolkit_version.has()) << c.toolkit_version.why();
  EXPECT_EQ(*c.toolkit_version, "13.0.88");
  EXPECT_EQ(c.toolkit_version.source, "/usr/local/cuda/dist-info/nvidia_cuda_nvcc-13.0.88.dist-info");
}

TEST(CudaToolkitDistInfo, OtherWheelsAloneGiveNoVersion) {
  TempTree t;
  fs::create_directories(t.dir + "/usr/local/cuda/dist-info/nvidia_cublas-13.1.0.3.dist-info");
  fs::create_directories(t.dir + "/usr/local/cuda/dist-info/nvidia_cuda_nvcc_extra-1.0.dist-info");
  Context ctx;
  ctx.root = HostRoot(t.dir);
  CudaStackFacts c = read_cuda_stack(ctx);
  EXPECT_FALSE(c.toolkit_version.has()) << *c.toolkit_version;
}

}  // namespace
}  // namespace plumb
