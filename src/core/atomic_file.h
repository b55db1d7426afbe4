// Writes a whole file or nothing: a temporary beside the target, fsync, then rename.
#pragma once

#include <string>

#include "core/result.h"

namespace plumb {

Result<bool> write_file_atomic(const std::string& path, const std::string& content);

}  // namespace plumb
