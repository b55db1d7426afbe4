// Atomic file writes for --out, --save and baselines: a reader never sees half a report, and a
// write never replaces anything but a regular file.
//
// plumb often runs as root on shared nodes, where an --out path may name a device node, a FIFO or
// a symlink another user planted. So the target is checked with lstat() first and only a missing
// path or a regular file is replaced. The content is written to an unnamed O_TMPFILE in the target's
// directory (a kill -9 while writing leaves nothing behind), linked under a temporary name and
// renamed over the target; file systems without O_TMPFILE fall back to mkstemp(). An existing
// file keeps its permission bits (and, for root, its owner); a new one gets 0666 minus the umask,
// like any file a shell redirection creates.
#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <system_error>

#include "core/host_root.h"

namespace plumb {

namespace {

Error write_error(const std::string& path, int e) {
  return make_error(error_kind_from_errno(e), "cannot write " + path + " (" + errno_text(e) + ")");
}

const char* kind_of(mode_t m) {
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

mode_t current_umask() {
  // umask() can only be read by setting it; plumb creates no files from other threads.
  mode_t m = ::umask(022);
  ::umask(m);
  return m;
}

bool write_all(int fd, const std::string& content) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

std::string random_suffix() {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device rd;
  std::string s;
  for (int i = 0; i < 10; ++i) s += kChars[rd() % (sizeof(kChars) - 1)];
  return s;
}

// Gives an O_TMPFILE descriptor a name beside the target (through /proc/self/fd, which needs no
// capability, unlike AT_EMPTY_PATH). Returns the name, or "" when it could not be linked.
std::string link_tmpfile(int fd, const std::string& path) {
  std::string fdpath = "/proc/self/fd/" + std::to_string(fd);
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string name = path + ".tmp." + random_suffix();
    if (::linkat(AT_FDCWD, fdpath.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) return name;
    if (errno != EEXIST) return {};
  }
  return {};
}

}  // namespace

Result<bool> write_file_atomic(const std::string& path, const std::string& content) {
  if (path.empty()) return make_error(ErrorKind::invalid, "cannot write an empty path");
  struct stat old {};
  bool exists = false;
  if (::lstat(path.c_str(), &old) == 0) {
    if (!S_ISREG(old.st_mode)) {
      return make_error(ErrorKind::invalid, "refusing to replace " + path + ": it is " + kind_of(old.st_mode) +
                                                ", not a regular file (name a regular file, or leave out the option "
                                                "to print to standard output)");
    }
    exists = true;
  } else if (errno != ENOENT) {
    return write_error(path, errno);
  }
  const mode_t mode = exists ? (old.st_mode & 07777) : (0666 & ~current_umask());

  std::string tmp;
  int fd = ::open(dir_of(path).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  bool unnamed = fd >= 0;
  if (!unnamed) {
    tmp = path + ".tmp.XXXXXX";
    fd = ::mkostemp(tmp.data(), O_CLOEXEC);
    if (fd < 0) return write_error(path, errno);
  }
  auto fail = [&](int e) -> Result<bool> {
    ::close(fd);
    if (!tmp.empty()) ::unlink(tmp.c_str());
    return write_error(path, e);
  };
  if (!write_all(fd, content)) return fail(errno);
  if (::fchmod(fd, mode) != 0) return fail(errno);
  if (exists && ::geteuid() == 0) {
    // Root rewriting a user's file leaves it theirs; failure (e.g. on NFS) keeps root's ownership.
    (void)::fchown(fd, old.st_uid, old.st_gid);
  }
  if (::fsync(fd) != 0) return fail(errno);
  if (unnamed) {
    tmp = link_tmpfile(fd, path);
    if (tmp.empty()) return fail(errno != 0 ? errno : EIO);
  }
  if (::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return write_error(path, e);
  }
  // rename() replaces the directory entry and never writes through a link or into a device; an
  // entry swapped in since the check could only come from someone who may write that directory.
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return write_error(path, e);
  }
  return true;
}

Result<int> open_growing_file(const std::string& path) {
  if (path.empty()) return make_error(ErrorKind::invalid, "cannot write an empty path");
  // O_NOFOLLOW: a symlink is refused (ELOOP), never written through; O_NONBLOCK: a FIFO without
  // a reader fails (ENXIO) instead of waiting for one.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
  if (fd < 0) {
    int e = errno;
    struct stat st {};
    if ((e == ELOOP || e == ENXIO || e == EISDIR) && ::lstat(path.c_str(), &st) == 0) {
      return make_error(ErrorKind::invalid, "refusing to write " + path + ": it is " + kind_of(st.st_mode) + ", not a regular file");
    }
    return write_error(path, e);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int e = errno;
    ::close(fd);
    if (!S_ISREG(st.st_mode) && st.st_mode != 0) {
      return make_error(ErrorKind::invalid, "refusing to write " + path + ": it is " + kind_of(st.st_mode) + ", not a regular file");
    }
    return write_error(path, e);
  }
  int flags = ::fcntl(fd, F_GETFL);
  if (::ftruncate(fd, 0) != 0 || flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    int e = errno;
    ::close(fd);
    return write_error(path, e);
  }
  return fd;
}

bool same_file(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ea, eb;
  auto ca = std::filesystem::weakly_canonical(a, ea), cb = std::filesystem::weakly_canonical(b, eb);
  return !ea && !eb && ca == cb;
}

}  // namespace plumb
