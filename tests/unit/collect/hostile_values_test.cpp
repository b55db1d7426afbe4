// Messages for hostile or unreadable host files say what is wrong, not that the thing is missing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "collect/cgroup.h"
#include "collect/memory.h"
#include "../../scratch_root.h"
#include "../../test_util.h"

namespace plumb {
namespace {

using test::ScratchRoot;

TEST(HostileValues, MemTotalPastTwoToTheSixtyFourIsOutOfRange) {
  ScratchRoot r("meminfo_huge");
  r.write("proc/meminfo", "MemTotal:       18446744073709551615 kB\nMemFree: 12 kB\nMemAvailable: x kB\n");
  MemoryFacts m = read_memory(HostRoot(r.path()));
  ASSERT_FALSE(m.mem_total_bytes.has());
  EXPECT_NE(m.mem_total_bytes.why().find("MemTotal in meminfo is out of range"), std::string::npos) << m.mem_total_bytes.why();
  EXPECT_NE(m.mem_available_bytes.why().find("not a number of kB"), std::string::npos) << m.mem_available_bytes.why();
  ScratchRoot none("meminfo_none");
  none.write("proc/meminfo", "MemFree: 12 kB\n");
  EXPECT_NE(read_memory(HostRoot(none.path())).mem_total_bytes.why().find("not in meminfo"), std::string::npos);
}

TEST(HostileValues, UnreadableCgroupDirectoryIsPermissionDenied) {
  ScratchRoot r("cg_denied");
  r.write("proc/self/cgroup", "0::/job.slice\n");
  r.write("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  std::string dir = r.path() + "/sys/fs/cgroup";
  ASSERT_EQ(::chmod(dir.c_str(), 0), 0);
  bool root_reads = ::access((dir + "/cgroup.controllers").c_str(), R_OK) == 0;
  Context c;
  c.root = HostRoot(r.path());
  CgroupFacts cg = read_cgroup(c);
  ::chmod(dir.c_str(), 0755);
  if (root_reads) GTEST_SKIP() << "running with CAP_DAC_OVERRIDE: chmod 000 does not deny here";
  EXPECT_NE(cg.memory_limit_bytes.why().find("permission denied"), std::string::npos) << cg.memory_limit_bytes.why();
  EXPECT_NE(cg.memory_limit_bytes.why().find("/sys/fs/cgroup"), std::string::npos) << cg.memory_limit_bytes.why();
}

}  // namespace
}  // namespace plumb
