// Atomic file writes for --out, --save and baselines: a reader never sees half a report.
#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>

#include "core/host_root.h"

namespace plumb {

Result<bool> write_file_atomic(const std::string& path, const std::string& content) {
  std::string tmpl = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) {
    int e = errno;
    return make_error(error_kind_from_errno(e), "cannot write " + path + " (" + std::strerror(e) + ")");
  }
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      return make_error(ErrorKind::io, "cannot write " + path + " (" + std::strerror(e) + ")");
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int e = errno;
    ::unlink(tmpl.c_str());
    return make_error(ErrorKind::io, "cannot write " + path + " (" + std::strerror(e) + ")");
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmpl.c_str());
    return make_error(error_kind_from_errno(e), "cannot write " + path + " (" + std::strerror(e) + ")");
  }
  return true;
}

}  // namespace plumb
