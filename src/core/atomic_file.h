// Writes a whole file or nothing: an unnamed temporary beside the target, fsync, then rename.
// Only a missing path or a regular file is replaced (never a symlink, device, FIFO or directory);
// an existing file keeps its mode, a new one gets 0666 minus the umask.
#pragma once

#include <string>

#include "core/result.h"

namespace plumb {

Result<bool> write_file_atomic(const std::string& path, const std::string& content);

}  // namespace plumb
