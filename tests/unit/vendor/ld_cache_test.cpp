// /etc/ld.so.cache parsing on a real cache and on built ones (old+new format, truncation).
#include <gtest/gtest.h>

#include <cstring>

#include "vendor/ld_cache.h"
#include "../../test_util.h"

namespace plumb {
namespace {

// Builds a new-format cache with the given entries (glibc's cache_file_new layout).
std::string build_new(const std::vector<LdCacheEntry>& entries) {
  std::string strings;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> offs;
  const std::uint32_t base = 48 + static_cast<std::uint32_t>(entries.size()) * 24;
  for (const auto& e : entries) {
    std::uint32_t k = base + static_cast<std::uint32_t>(strings.size());
    strings.append(e.name);
    strings += '\0';
    std::uint32_t v = base + static_cast<std::uint32_t>(strings.size());
    strings.append(e.path);
    strings += '\0';
    offs.emplace_back(k, v);
  }
  std::string out = "glibc-ld.so.cache1.1";
  auto u32 = [&](std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  u32(static_cast<std::uint32_t>(entries.size()));
  u32(static_cast<std::uint32_t>(strings.size()));
  out.append(16, '\0');  // flags, padding, extension offset, unused
  out.resize(48, '\0');
  for (auto [k, v] : offs) {
    u32(0x303);
    u32(k);
    u32(v);
    u32(0);
    out.append(8, '\0');
  }
  return out + strings;
}

TEST(LdCache, RealCacheOfTheBuildMachine) {
  // tests/fixtures/gpu/ld.so.cache-debian12-cuda13: /etc/ld.so.cache of a Debian 12 host with CUDA 13.
  std::string data = test::read_fixture("gpu/ld.so.cache-debian12-cuda13");
  auto e = parse_ld_so_cache(data);
  ASSERT_GT(e.size(), 100u);
  bool cudart = false, libc = false;
  for (const auto& x : e) {
    cudart |= x.name == "libcudart.so.13" && x.path == "/usr/local/cuda-13.0/lib/libcudart.so.13";
    libc |= x.name == "libc.so.6";
  }
  EXPECT_TRUE(cudart);
  EXPECT_TRUE(libc);
}

TEST(LdCache, BuiltNewFormatKeepsOrder) {
  std::vector<LdCacheEntry> in = {{"libnccl.so.2", "/opt/nccl/lib/libnccl.so.2"}, {"libcudnn.so.9", "/usr/lib/libcudnn.so.9"}};
  const std::string blob = build_new(in);
  EXPECT_EQ(parse_ld_so_cache(blob), in);
}

TEST(LdCache, OldFormatFollowedByNew) {
  std::vector<LdCacheEntry> in = {{"libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"}};
  std::string old = "ld.so-1.7.0";
  old.resize(12, '\0');
  std::uint32_t n = 1;
  old.append(reinterpret_cast<const char*>(&n), 4);
  old.append(12, '\0');  // one old entry
  old.resize(32, '\0');  // aligned to 8
  const std::string blob = old + build_new(in);
  EXPECT_EQ(parse_ld_so_cache(blob), in);
}

TEST(LdCache, GarbageAndTruncationAreHarmless) {
  EXPECT_TRUE(parse_ld_so_cache("").empty());
  EXPECT_TRUE(parse_ld_so_cache("glibc-ld.so.cache1.1").empty());
  std::string full = build_new({{"libnccl.so.2", "/x/libnccl.so.2"}, {"libcudnn.so.9", "/y/libcudnn.so.9"}});
  for (std::size_t cut = 0; cut < full.size(); ++cut) parse_ld_so_cache(full.substr(0, cut));
  std::string bad = full;
  std::uint32_t huge = 0xFFFFFFFF;
  std::memcpy(bad.data() + 20, &huge, 4);  // nlibs far beyond the data
  EXPECT_LE(parse_ld_so_cache(bad).size(), 2u);
}

}  // namespace
}  // namespace plumb
