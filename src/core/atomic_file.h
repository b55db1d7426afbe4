// Writes a whole file or nothing: an unnamed temporary beside the target, fsync, then rename.
// Only a missing path or a regular file is replaced (never a symlink, device, FIFO or directory);
// an existing file keeps its mode, a new one gets 0666 minus the umask.
#pragma once

#include <string>

#include "core/result.h"

namespace plumb {

Result<bool> write_file_atomic(const std::string& path, const std::string& content);

// A file written as it grows (a `plumb watch --record` file): a missing path is created (0666
// minus the umask), a regular file is emptied; a symlink, FIFO, device, socket or directory is
// refused, and opening never blocks (a FIFO without a reader). Returns the open descriptor.
Result<int> open_growing_file(const std::string& path);

// Whether two paths name one file: the same inode, or the same path once resolved (neither need
// exist yet). Two outputs of one command must not, or the second write replaces the first.
bool same_file(const std::string& a, const std::string& b);

}  // namespace plumb
