// HostRoot file access: bounded reads that report why they failed instead of throwing.
#include "core/host_root.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace plumb {

namespace {

Result<std::string> read_fd_all(int fd, const std::string& shown, std::size_t max_bytes) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return make_error(error_kind_from_errno(e), shown + " (" + std::strerror(e) + ")");
    }
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      ::close(fd);
      return make_error(ErrorKind::invalid, shown + " is larger than " + std::to_string(max_bytes) + " bytes");
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

Result<std::string> read_path(const std::string& real, const std::string& shown, std::size_t max_bytes) {
  // O_NONBLOCK: a FIFO or character device must never block a collector.
  int fd = ::open(real.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int e = errno;
    return make_error(error_kind_from_errno(e), shown + " (" + std::strerror(e) + ")");
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorKind::invalid, shown + " is a directory");
  }
  return read_fd_all(fd, shown, max_bytes);
}

}  // namespace

ErrorKind error_kind_from_errno(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
    case ENODEV:
    case ENXIO: return ErrorKind::absent;
    case EACCES:
    case EPERM: return ErrorKind::denied;
    case ETIMEDOUT: return ErrorKind::timed_out;
    case EOPNOTSUPP:
    case EINVAL: return ErrorKind::unsupported;
    default: return ErrorKind::io;
  }
}

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n\v\f";
  auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

HostRoot::HostRoot(std::string root) : root_(std::move(root)) {
  if (root_.empty()) root_ = "/";
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string HostRoot::path(std::string_view abs) const {
  if (root_ == "/") return std::string(abs);
  std::string p = root_;
  if (abs.empty() || abs.front() != '/') p += '/';
  p.append(abs);
  return p;
}

Result<std::string> HostRoot::read(std::string_view abs, std::size_t max_bytes) const {
  return read_path(path(abs), std::string(abs), max_bytes);
}

Result<std::string> HostRoot::read_value(std::string_view abs) const {
  auto r = read(abs, 1u << 16);
  if (!r) return r.error();
  std::string_view v = *r;
  auto nl = v.find('\n');
  if (nl != std::string_view::npos) v = v.substr(0, nl);
  return std::string(trim(v));
}

Result<std::vector<std::string>> HostRoot::list(std::string_view abs) const {
  std::string real = path(abs);
  DIR* d = ::opendir(real.c_str());
  if (d == nullptr) {
    int e = errno;
    return make_error(error_kind_from_errno(e), std::string(abs) + " (" + std::strerror(e) + ")");
  }
  std::vector<std::string> names;
  while (dirent* ent = ::readdir(d)) {
    std::string n = ent->d_name;
    if (n == "." || n == "..") continue;
    names.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::string> HostRoot::read_link(std::string_view abs) const {
  std::string real = path(abs);
  char buf[4096];
  ssize_t n = ::readlink(real.c_str(), buf, sizeof buf - 1);
  if (n < 0) {
    int e = errno;
    return make_error(error_kind_from_errno(e), std::string(abs) + " (" + std::strerror(e) + ")");
  }
  return std::string(buf, static_cast<std::size_t>(n));
}

bool HostRoot::exists(std::string_view abs) const {
  struct stat st {};
  return ::lstat(path(abs).c_str(), &st) == 0;
}

Result<std::string> read_user_file(const std::string& path, std::size_t max_bytes) {
  return read_path(path, path, max_bytes);
}

}  // namespace plumb
