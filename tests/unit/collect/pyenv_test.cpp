// pyenv shim resolution against a pyenv layout built in a temporary folder (shims, versions,
// version files), the rules of pyenv's README.
#include "collect/pyenv.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace plumb {
namespace {

namespace fs = std::filesystem;

class Pyenv : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/plumb-pyenv-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    root_ = dir_ + "/pyenv";
    exe(root_ + "/libexec/pyenv");
    exe(root_ + "/shims/python3");
    exe(root_ + "/versions/3.11.7/bin/python3");
    exe(root_ + "/versions/3.12.1/bin/python3");
    exe(dir_ + "/usr/bin/python3");
    file(root_ + "/version", "3.11.7\n");
    fs::create_directories(dir_ + "/proj/sub");
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void file(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << text;
  }
  static void exe(const std::string& path) {
    file(path, "#!/bin/sh\n");
    ::chmod(path.c_str(), 0755);
  }
  [[nodiscard]] std::map<std::string, std::string> env(const std::string& extra_version = "") const {
    std::map<std::string, std::string> e{{"PATH", root_ + "/shims:" + dir_ + "/usr/bin"}};
    if (!extra_version.empty()) e["PYENV_VERSION"] = extra_version;
    return e;
  }

  std::string dir_, root_;
};

TEST(PyenvVersionFile, WordsCommentsAndPaths) {
  EXPECT_EQ(parse_pyenv_version_file("3.11.7\n"), (std::vector<std::string>{"3.11.7"}));
  EXPECT_EQ(parse_pyenv_version_file("# pinned\r\n3.12.1 system\t# fallback\n\n  miniconda3-latest\r\n"),
            (std::vector<std::string>{"3.12.1", "system", "miniconda3-latest"}));
  EXPECT_EQ(parse_pyenv_version_file("../../etc ./x /usr\n..\n"), std::vector<std::string>{});
  EXPECT_TRUE(parse_pyenv_version_file("").empty());
}

TEST_F(Pyenv, GlobalVersionFile) {
  auto r = resolve_pyenv_shim("python3", env(), dir_ + "/proj/sub");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->interpreter, root_ + "/versions/3.11.7/bin/python3");
  EXPECT_EQ(r->version, "3.11.7");
  EXPECT_EQ(r->chosen_by, root_ + "/version");
}

TEST_F(Pyenv, NearestPythonVersionFileWins) {
  file(dir_ + "/proj/.python-version", "# project\n3.12.1\n");
  auto r = resolve_pyenv_shim("python3", env(), dir_ + "/proj/sub");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->interpreter, root_ + "/versions/3.12.1/bin/python3");
  EXPECT_EQ(r->chosen_by, dir_ + "/proj/.python-version");
}

TEST_F(Pyenv, EnvironmentWinsAndSystemIsTheNextOnPath) {
  file(dir_ + "/proj/.python-version", "3.12.1\n");
  auto r = resolve_pyenv_shim("python3", env("system"), dir_ + "/proj");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->interpreter, dir_ + "/usr/bin/python3");
  EXPECT_EQ(r->chosen_by, "$PYENV_VERSION");
  // The first installed one of several.
  r = resolve_pyenv_shim("python3", env("3.9.0:3.12.1"), dir_ + "/proj");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->version, "3.12.1");
}

TEST_F(Pyenv, NotAShimOrUnresolvableLeavesTheCommandAlone) {
  std::map<std::string, std::string> plain{{"PATH", dir_ + "/usr/bin"}};
  EXPECT_FALSE(resolve_pyenv_shim("python3", plain, dir_));
  EXPECT_FALSE(resolve_pyenv_shim("python3", env("3.8.0"), dir_));  // not installed: pyenv's error
  EXPECT_FALSE(resolve_pyenv_shim("/usr/bin/python3", env(), dir_));
  std::map<std::string, std::string> other_root = env();
  other_root["PYENV_ROOT"] = dir_ + "/elsewhere";  // shims of another installation
  EXPECT_FALSE(resolve_pyenv_shim("python3", other_root, dir_));
  fs::remove(root_ + "/libexec/pyenv");  // a "shims" folder that is not pyenv's
  EXPECT_FALSE(resolve_pyenv_shim("python3", env(), dir_));
}

}  // namespace
}  // namespace plumb
