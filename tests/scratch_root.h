// Scratch root trees for collector tests, written file by file.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace plumb::test {

// A temporary root directory, removed when the test ends.
class ScratchRoot {
 public:
  explicit ScratchRoot(const std::string& name)
      : dir_(std::filesystem::path(::testing::TempDir()) / ("plumb_scratch_root_" + name)) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~ScratchRoot() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ScratchRoot(const ScratchRoot&) = delete;
  ScratchRoot& operator=(const ScratchRoot&) = delete;

  void write(const std::string& rel, const std::string& text) const {
    auto p = dir_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }
  void copy_dir(const std::string& from, const std::string& rel) const {
    auto p = dir_ / rel;
    std::filesystem::create_directories(p);
    std::filesystem::copy(from, p, std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
  }
  [[nodiscard]] std::string path() const { return dir_.string(); }

 private:
  std::filesystem::path dir_;
};

}  // namespace plumb::test
