// Filtered folder listing; see core/dir_names.h.
#include "core/dir_names.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace plumb {

Result<std::vector<std::string>> list_names(const HostRoot& root, std::string_view abs,
                                            const std::function<bool(std::string_view)>& keep) {
  auto fd = root.open(abs, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
  if (!fd) return fd.error();
  DIR* d = ::fdopendir(*fd);
  if (d == nullptr) {
    const int e = errno;
    ::close(*fd);
    return make_error(error_kind_from_errno(e), std::string(abs) + " (" + errno_text(e) + ")");
  }
  std::vector<std::string> names;
  // readdir(3) is safe on a stream no other thread reads (glibc's manual, "POSIX Safety Concepts").
  while (dirent* ent = ::readdir(d)) {  // NOLINT(concurrency-mt-unsafe): this stream is this call's own
    const std::string_view n = ent->d_name;
    if (n == "." || n == ".." || !keep(n)) continue;
    names.emplace_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace plumb
