// SQLite and Vectorscan through the function tables plumb opens at their first use
// (vendor/sqlite_api.h, vendor/hs_api.h): every function resolves and works, and a library that is
// not there is an error that names the Debian package.
#include <gtest/gtest.h>

#include <string>

#include "vendor/hs_api.h"
#include "vendor/sqlite_api.h"

namespace plumb {
namespace {

TEST(SqliteApi, EveryFunctionResolvesAndAnInMemoryDatabaseWorks) {
  auto api = sqlite_api();
  ASSERT_TRUE(api) << api.error().message;
  const SqliteApi& sq = **api;
#define PLUMB_EXPECT_SET(name) EXPECT_NE(sq.name, nullptr) << "sqlite3_" #name;
  PLUMB_SQLITE_FUNCTIONS(PLUMB_EXPECT_SET)
#undef PLUMB_EXPECT_SET
  sqlite3* db = nullptr;
  ASSERT_EQ(sq.open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr), SQLITE_OK);
  EXPECT_EQ(sq.exec(db, "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES(42);", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sq.prepare_v2(db, "SELECT x FROM t", -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sq.step(s), SQLITE_ROW);
  EXPECT_EQ(sq.column_int64(s, 0), 42);
  sq.finalize(s);
  EXPECT_EQ(sq.close_v2(db), SQLITE_OK);
  // Loaded once: the same table every time.
  auto again = sqlite_api();
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *api);
}

TEST(SqliteApi, AMissingLibraryNamesThePackage) {
#ifdef PLUMB_LINKED_SQLITE
  GTEST_SKIP() << "this build links SQLite: nothing is opened at run time";
#else
  auto api = load_sqlite_api({"libplumb-test-no-such-sqlite.so.0"});
  ASSERT_FALSE(api);
  EXPECT_EQ(api.error().kind, ErrorKind::absent);
  EXPECT_NE(api.error().message.find("libsqlite3-0"), std::string::npos) << api.error().message;
#endif
}

int count_match(unsigned /*id*/, unsigned long long /*from*/, unsigned long long /*to*/, unsigned /*flags*/, void* ctx) {
  ++*static_cast<int*>(ctx);
  return 0;
}

TEST(HsApi, EveryFunctionResolvesAndAScanMatches) {
  auto api = hs_api();
  ASSERT_TRUE(api) << api.error().message;
  const HsApi& hs = **api;
#define PLUMB_EXPECT_SET(name) EXPECT_NE(hs.name, nullptr) << "hs_" #name;
  PLUMB_HS_FUNCTIONS(PLUMB_EXPECT_SET)
#undef PLUMB_EXPECT_SET
  const char* exprs[] = {"NCCL WARN", "Xid [0-9]+"};
  const unsigned flags[] = {0, 0};
  const unsigned ids[] = {0, 1};
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  ASSERT_EQ(hs.compile_multi(exprs, flags, ids, 2, HS_MODE_BLOCK, nullptr, &db, &err), HS_SUCCESS);
  hs_scratch_t* scratch = nullptr;
  ASSERT_EQ(hs.alloc_scratch(db, &scratch), HS_SUCCESS);
  const std::string text = "a NCCL WARN line\nNVRM: Xid 79, GPU has fallen off the bus\n";
  int hits = 0;
  EXPECT_EQ(hs.scan(db, text.data(), static_cast<unsigned>(text.size()), 0, scratch, count_match, &hits), HS_SUCCESS);
  EXPECT_GE(hits, 2);
  hs.free_scratch(scratch);
  hs.free_database(db);
  // A pattern that does not compile: the error comes back and is freed through the table.
  const char* bad[] = {"(unclosed"};
  EXPECT_NE(hs.compile_multi(bad, flags, ids, 1, HS_MODE_BLOCK, nullptr, &db, &err), HS_SUCCESS);
  ASSERT_NE(err, nullptr);
  hs.free_compile_error(err);
}

TEST(HsApi, AMissingLibraryNamesThePackage) {
#ifdef PLUMB_LINKED_HS
  GTEST_SKIP() << "this build links Vectorscan: nothing is opened at run time";
#else
  auto api = load_hs_api({"libplumb-test-no-such-hs.so.5"});
  ASSERT_FALSE(api);
  EXPECT_EQ(api.error().kind, ErrorKind::absent);
  EXPECT_NE(api.error().message.find("libvectorscan5"), std::string::npos) << api.error().message;
#endif
}

}  // namespace
}  // namespace plumb
