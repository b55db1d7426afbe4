// storage: where the test file goes and which file system it is on (pure helpers for tests).
#pragma once

#include <cstdint>
#include <string>

#include "core/result.h"

namespace plumb {

// Name of a file system from statfs f_type ("ext4", "xfs", "tmpfs", ...; "0x…" when unknown).
std::string fs_type_name(std::uint64_t magic);

// How the test file is made: inside an existing directory, or as a new file at PATH. An existing
// non-directory is refused (plumb never overwrites anything).
struct StoragePlace {
  std::string dir;        // directory the file lives in
  std::string file;       // the new file's path; empty when an unnamed O_TMPFILE is possible
  bool is_dir = false;    // PATH was a directory
};
Result<StoragePlace> storage_place(const std::string& path);

}  // namespace plumb
