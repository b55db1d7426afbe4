// What the plumb binary maps at its start: neither SQLite, nor Vectorscan, nor toml++ (the first
// two are opened at their first use, the last compiled in); a command that starts without them
// still records its run and scans logs (the history and diagnose tests cover both).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../test_util.h"

namespace plumb {
namespace {

TEST(Start, TheBinaryNeedsNoSqliteVectorscanOrTomlLibrary) {
  RunOptions o;
  o.timeout = std::chrono::milliseconds(30000);
  auto r = run_program({"readelf", "--dynamic", "--wide", PLUMB_BINARY}, o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->exit_code, 0) << r->err;
  ASSERT_NE(r->out.find("(NEEDED)"), std::string::npos) << r->out;
  for (const char* lib : {"libsqlite3", "libhs.so", "libtomlplusplus"}) {
    EXPECT_EQ(r->out.find(lib), std::string::npos) << lib << " is linked:\n" << r->out;
  }
}

TEST(Start, ACheckRecordsItsRunWithSqliteOpenedAtRunTime) {
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
