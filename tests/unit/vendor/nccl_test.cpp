// The real NCCL library through plumb's loader: every entry point of the table binds, and
// ncclGetUniqueId (which needs no GPU) answers a bootstrap handle: a 64-bit magic followed by the
// socket address of the root it started (struct ncclBootstrapHandle in NVIDIA/nccl src/include/bootstrap.h).
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cstdint>
#include <cstring>
#include <filesystem>

#include "vendor/cuda_api.h"

namespace plumb {

TEST(RealNccl, TableBindsAndTheUniqueIdIsABootstrapAddress) {
  const std::string lib = "/usr/local/cuda/lib64/libnccl.so.2";
  if (!std::filesystem::exists(lib)) GTEST_SKIP() << "needs NCCL at " << lib << " (the CUDA toolkit's copy)";
  auto n = cuda::open_nccl(lib);
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(n->missing, "");
  int version = 0;
  ASSERT_EQ(n->GetVersion(&version), 0);
  EXPECT_GE(version, 2000);
  cuda::UniqueId id{};
  int rc = n->GetUniqueId(&id);
  if (rc != 0) GTEST_SKIP() << "ncclGetUniqueId returned " << rc << " (" << n->GetErrorString(rc) << "): no usable network interface here";
  std::uint16_t family = 0;
  std::memcpy(&family, id.internal + 8, sizeof family);
  EXPECT_TRUE(family == AF_INET || family == AF_INET6) << family;
  std::uint16_t port = 0;
  std::memcpy(&port, id.internal + 10, sizeof port);
  EXPECT_NE(port, 0) << "the root listens on a port";
}

}  // namespace plumb
