// HostRoot as a jail: with --root set, absolute symlinks and ".." inside the tree resolve against
// the tree, never the host, both through openat2(2) RESOLVE_IN_ROOT and the component walk.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/host_root.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;

class HostRootJail : public ::testing::TestWithParam<bool> {
 protected:
  fs::path tree;
  void SetUp() override {
    host_root_force_walk_for_testing(GetParam());
    tree = fs::path(::testing::TempDir()) / ("plumb_jail_" + std::to_string(::getpid()));
    fs::remove_all(tree);
    fs::create_directories(tree / "etc");
    fs::create_directories(tree / "proc/1");
    fs::create_directories(tree / "data/sub");
    std::ofstream(tree / "etc/hostname") << "tree-host\n";
    std::ofstream(tree / "data/sub/file") << "inside\n";
    fs::create_symlink("/etc/hostname", tree / "data/abs_link");             // absolute: the tree's own
    fs::create_symlink("../../../../../../etc/hostname", tree / "data/up_link");  // climbs past the root
    fs::create_symlink("/data", tree / "data/loop_a");
    fs::create_symlink("loop_b", tree / "data/loop_b");  // a link to itself
    fs::create_symlink("/etc", tree / "etc_link");
    fs::create_symlink("/", tree / "data/root_link");
  }
  void TearDown() override {
    host_root_force_walk_for_testing(false);
    std::error_code ec;
    fs::remove_all(tree, ec);
  }
};

TEST_P(HostRootJail, AbsoluteSymlinkStaysInside) {
  HostRoot root(tree.string());
  auto r = root.read("/data/abs_link");
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(*r, "tree-host\n");
}

TEST_P(HostRootJail, DotDotIsClampedAtTheRoot) {
  HostRoot root(tree.string());
  auto r = root.read("/../../../../etc/hostname");
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(*r, "tree-host\n");
  auto up = root.read("/data/up_link");
  ASSERT_TRUE(up) << up.error().describe();
  EXPECT_EQ(*up, "tree-host\n");
  auto via = root.read("/data/root_link/etc/hostname");
  ASSERT_TRUE(via) << via.error().describe();
  EXPECT_EQ(*via, "tree-host\n");
}

TEST_P(HostRootJail, HostOnlyFileIsAbsent) {
  // /etc/shadow (or any host file) that the tree lacks: absent, whatever path reaches for it.
  HostRoot root(tree.string());
  for (const char* p : {"/../../../../etc/shadow", "/etc_link/shadow", "/data/root_link/../../etc/shadow"}) {
    auto r = root.read(p);
    ASSERT_FALSE(r) << p << " read " << *r;
    EXPECT_EQ(r.error().kind, ErrorKind::absent) << p << ": " << r.error().describe();
  }
  EXPECT_FALSE(root.exists("/../../etc/shadow"));
}

TEST_P(HostRootJail, ListAndReadLinkStayInside) {
  HostRoot root(tree.string());
  auto l = root.list("/etc_link");
  ASSERT_TRUE(l) << l.error().describe();
  ASSERT_EQ(l->size(), 1u);
  EXPECT_EQ(l->front(), "hostname");
  auto up = root.list("/../..");
  ASSERT_TRUE(up) << up.error().describe();
  EXPECT_NE(std::find(up->begin(), up->end(), "data"), up->end());
  auto link = root.read_link("/data/abs_link");
  ASSERT_TRUE(link) << link.error().describe();
  EXPECT_EQ(*link, "/etc/hostname");
  auto in = root.read_link("/etc_link/../data/abs_link");  // ".." after a link: the tree's /
  ASSERT_TRUE(in) << in.error().describe();
  EXPECT_EQ(*in, "/etc/hostname");
  EXPECT_TRUE(root.exists("/data/abs_link"));
}

TEST_P(HostRootJail, LinkLoopsFail) {
  HostRoot root(tree.string());
  EXPECT_FALSE(root.read("/data/loop_b"));
  EXPECT_FALSE(root.read("/data/loop_a/loop_a/loop_a/sub/file/x"));
  auto ok = root.read("/data/loop_a/loop_a/sub/file");
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_EQ(*ok, "inside\n");
}

INSTANTIATE_TEST_SUITE_P(Resolvers, HostRootJail, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? std::string("Walk") : std::string("Openat2"); });

}  // namespace
}  // namespace plumb
