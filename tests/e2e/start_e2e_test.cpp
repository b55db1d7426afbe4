// The libraries the plumb binary links: SQLite, Vectorscan and ISA-L as the Debian packages the
// .deb depends on (dpkg-shlibdeps reads these entries), toml++ not at all (compiled in from its
// headers); a check records its run in the history database.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../test_util.h"

namespace plumb {
namespace {

TEST(Start, TheBinaryLinksSqliteVectorscanAndIsalButNoTomlLibrary) {
  RunOptions o;
  o.timeout = std::chrono::milliseconds(30000);
  auto r = run_program({"readelf", "--dynamic", "--wide", PLUMB_BINARY}, o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->exit_code, 0) << r->err;
  ASSERT_NE(r->out.find("(NEEDED)"), std::string::npos) << r->out;
  for (const char* lib : {"[libsqlite3.so.0]", "[libhs.so.5]", "[libisal.so.2]"}) {
    EXPECT_NE(r->out.find(lib), std::string::npos) << lib << " is not linked:\n" << r->out;
  }
  EXPECT_EQ(r->out.find("libtomlplusplus"), std::string::npos) << "toml++ is linked:\n" << r->out;
}

TEST(Start, ACheckRecordsItsRunInTheHistory) {
  const std::string db = ::testing::TempDir() + "/plumb-start-" + std::to_string(::getpid()) + ".db";
  ::unlink(db.c_str());
  auto r = test::run_plumb({"check", "--root", test::host_fixture("healthy"), "--db", db, "--format", "json"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  auto h = test::run_plumb({"history", "--db", db});
  EXPECT_EQ(h.exit_code, 0) << h.err;
  EXPECT_NE(h.out.find("check"), std::string::npos) << h.out;
  ::unlink(db.c_str());
  ::unlink((db + "-wal").c_str());
  ::unlink((db + "-shm").c_str());
}

}  // namespace
}  // namespace plumb
