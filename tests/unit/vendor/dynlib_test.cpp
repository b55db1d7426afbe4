// vendor/dynlib: refusals before dlopen, versioned-name fallbacks, optional symbols newest first.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <string>

#include "vendor/dynlib.h"

namespace plumb {
namespace {

std::string temp_path(const char* tag) {
  return ::testing::TempDir() + "/plumb-dynlib-" + tag + "-" + std::to_string(::getpid());
}

TEST(Dynlib, AFifoIsRefusedWithoutHanging) {
  std::string fifo = temp_path("fifo");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // dlopen on a FIFO would block in open(2) until a writer appears; the stat check must refuse first.
  auto done = std::async(std::launch::async, [&] { return dynlib::open(fifo); });
  ASSERT_EQ(done.wait_for(std::chrono::seconds(5)), std::future_status::ready) << "dlopen hung on a FIFO";
  auto r = done.get();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::invalid);
  EXPECT_NE(r.error().message.find("not a regular file"), std::string::npos) << r.error().message;
  ::unlink(fifo.c_str());
}

TEST(Dynlib, MissingPathDirectoryAndNonLibrary) {
  auto missing = dynlib::open("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::absent);
  auto dir = dynlib::open("/tmp");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().kind, ErrorKind::invalid);
  std::string text = temp_path("text");
  if (FILE* f = std::fopen(text.c_str(), "w")) {
    std::fputs("not an ELF file\n", f);
    std::fclose(f);
  }
  auto junk = dynlib::open(text);
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.error().kind, ErrorKind::io);
  EXPECT_NE(junk.error().message.find("cannot load"), std::string::npos);
  ::unlink(text.c_str());
  EXPECT_FALSE(dynlib::open("").ok());
  auto no_soname = dynlib::open("libplumb-no-such-library.so.9");
  ASSERT_FALSE(no_soname.ok());
  EXPECT_EQ(no_soname.error().kind, ErrorKind::absent);
}

TEST(Dynlib, FirstNameThatOpensAndSymbolFallbacks) {
  auto lib = dynlib::open_first({"libplumb-no-such-library.so.1", "libc.so.6"});
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  EXPECT_EQ(lib->name, "libc.so.6");
  int (*fn)() = nullptr;
  std::vector<std::string> resolved;
  EXPECT_EQ(dynlib::resolve(*lib, fn, {"plumb_no_such_symbol_v2", "getpid"}, &resolved), 1);
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn(), static_cast<int>(::getpid()));
  EXPECT_EQ(resolved, (std::vector<std::string>{"getpid"}));
  EXPECT_EQ(dynlib::resolve(*lib, fn, {"plumb_no_such_symbol"}, &resolved), -1);
  EXPECT_EQ(fn, nullptr);
  EXPECT_EQ(resolved.size(), 1u);
  auto none = dynlib::open_first({"libplumb-no-such-library.so.1", "libplumb-no-such-library.so"});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().kind, ErrorKind::absent);
  EXPECT_NE(none.error().message.find("libplumb-no-such-library.so.1"), std::string::npos);
}

TEST(Dynlib, LoadRefusalFollowsOwnersAndWriteBits) {
  char tmpl[] = "/tmp/plumb-trust-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string lib = dir + "/libx.so";
  std::fclose(std::fopen(lib.c_str(), "w"));
  ASSERT_EQ(::chmod(lib.c_str(), 0644), 0);
  const unsigned me = ::geteuid();
  // Owned by this user under /tmp (sticky, writable by everyone: no one else can replace the entry).
  EXPECT_EQ(dynlib::load_refusal(lib, me), "");
  ASSERT_EQ(::chmod(lib.c_str(), 0666), 0);
  EXPECT_EQ(dynlib::load_refusal(lib, me), lib + " is writable by everyone");
  ASSERT_EQ(::chmod(lib.c_str(), 0644), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);  // a folder anyone may write, without the sticky bit
  EXPECT_EQ(dynlib::load_refusal(lib, me), dir + " is writable by everyone");
  ASSERT_EQ(::chmod(dir.c_str(), 01777), 0);
  EXPECT_EQ(dynlib::load_refusal(lib, me), "");
  ASSERT_EQ(::chmod(dir.c_str(), 0700), 0);
  // A link is judged by what it points to.
  const std::string link = dir + "/libx.so.1";
  ASSERT_EQ(::symlink("libx.so", link.c_str()), 0);
  EXPECT_EQ(dynlib::load_refusal(link, me), "");
  if (me != 0) {
    // Seen from root, a file this user owns is another user's.
    EXPECT_EQ(dynlib::load_refusal(lib, 0), lib + " is owned by uid " + std::to_string(me));
  } else {
    ASSERT_EQ(::chown(lib.c_str(), 12345, 0), 0);
    EXPECT_EQ(dynlib::load_refusal(link, 0), lib + " is owned by uid 12345");
    EXPECT_EQ(dynlib::load_refusal(lib, 12345), "");  // that user may load its own file
    ASSERT_EQ(::chown(lib.c_str(), 0, 12345), 0);
    ASSERT_EQ(::chmod(lib.c_str(), 0664), 0);
    EXPECT_EQ(dynlib::load_refusal(lib, 0), lib + " is writable by group 12345");
    ASSERT_EQ(::chown(lib.c_str(), 0, 0), 0);
    EXPECT_EQ(dynlib::load_refusal(lib, 0), "");  // group root may write: root's own
  }
  EXPECT_NE(dynlib::load_refusal(dir + "/missing.so", me).find("cannot be resolved"), std::string::npos);
  ::unlink(link.c_str());
  ::unlink(lib.c_str());
  ::rmdir(dir.c_str());
}

}  // namespace
}  // namespace plumb
