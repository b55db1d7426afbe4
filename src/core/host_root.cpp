// HostRoot file access: bounded reads that report why they failed instead of throwing.
#include "core/host_root.h"

#include "core/dir_names.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <deque>
#include <system_error>

namespace plumb {

namespace {

// A small file (most of sysfs and /proc) is read into a page of the stack, then copied once; a
// larger one straight into the string, sized from `size_hint` (a regular file's st_size; 0 for
// /proc and pipes, 4096 for sysfs) and doubled when it fills. A 64 KiB buffer on the stack was 16
// fresh pages on each collector's thread, and every byte was copied again.
Result<std::string> read_fd_all(int fd, const std::string& shown, std::size_t max_bytes, std::size_t size_hint = 0) {
  constexpr std::size_t kSmall = 4096;
  const auto too_large = [&] {
    return make_error(ErrorKind::invalid, shown + " is larger than " + std::to_string(max_bytes) + " bytes");
  };
  const auto read_error = [&](int e) { return make_error(error_kind_from_errno(e), shown + " (" + errno_text(e) + ")"); };
  if (size_hint > max_bytes) {  // a regular file already larger than allowed: not read at all
    ::close(fd);
    return too_large();
  }
  // One byte more than allowed shows that a file is larger (it may grow after fstat).
  const std::size_t limit = max_bytes == SIZE_MAX ? max_bytes : max_bytes + 1;
  std::string out;
  std::size_t len = 0;
  if (size_hint <= kSmall) {  // sysfs reports 4096 for every attribute
    char small[kSmall];
    const std::size_t room = std::min(kSmall, limit);
    while (len < room) {
      ssize_t n = ::read(fd, small + len, room - len);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int e = errno;
        ::close(fd);
        return read_error(e);
      }
      if (n == 0) {
        ::close(fd);
        return std::string(small, len);
      }
      len += static_cast<std::size_t>(n);
    }
    out.assign(small, len);  // full: the rest goes into the string
  }
  // One byte more than the file holds, so that the read which finds its end is the second one.
  out.resize(std::min(std::max({size_hint + 1, 2 * len, kSmall}), limit));
  for (;;) {
    if (len == out.size()) {
      if (len == limit) break;
      out.resize(std::min(2 * out.size(), limit));
    }
    ssize_t n = ::read(fd, out.data() + len, out.size() - len);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      return read_error(e);
    }
    if (n == 0) break;
    len += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (len > max_bytes) return too_large();
  out.resize(len);
  return out;
}

Result<std::string> fail(int e, std::string_view shown) {
  return make_error(error_kind_from_errno(e), std::string(shown) + " (" + errno_text(e) + ")");
}

// Reads an open descriptor after refusing what is not a file to read: a directory, a FIFO or a
// socket (a FIFO with no writer would read as empty, one with a writer could stream forever).
Result<std::string> read_checked(int fd, const std::string& shown, std::size_t max_bytes) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return fail(e, shown);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorKind::invalid, shown + " is a directory");
  }
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorKind::invalid, shown + ": not a regular file");
  }
  return read_fd_all(fd, shown, max_bytes, S_ISREG(st.st_mode) ? static_cast<std::size_t>(st.st_size) : 0);
}

std::atomic<bool> g_force_walk{false};
std::atomic<bool> g_no_openat2{false};

constexpr int kMaxLinkHops = 40;  // the kernel's own limit on symlinks in one lookup

void close_all(std::vector<int>& fds) {
  for (int fd : fds) ::close(fd);
  fds.clear();
}

std::deque<std::string> components(std::string_view p) {
  std::deque<std::string> out;
  std::size_t i = 0;
  while (i <= p.size()) {
    auto j = p.find('/', i);
    if (j == std::string_view::npos) j = p.size();
    if (j > i) out.emplace_back(p.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// The component walk RESOLVE_IN_ROOT performs, for kernels without openat2(2): every component
// is opened O_PATH|O_NOFOLLOW below the previous one, ".." stops at the root, a symbolic link is
// read and its target walked again from the root (absolute) or the current directory (relative).
// Returns a descriptor or -errno.
int walk_in_root(int root_fd, std::string_view rel, int flags) {
  bool follow_last = (flags & O_NOFOLLOW) == 0;
  std::deque<std::string> pending = components(rel);
  std::vector<int> stack;  // descriptors of the directories below the root, innermost last
  int hops = 0;
  auto top = [&] { return stack.empty() ? root_fd : stack.back(); };
  if (pending.empty()) {
    int fd = ::openat(root_fd, ".", flags | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
  }
  while (!pending.empty()) {
    std::string name = std::move(pending.front());
    pending.pop_front();
    bool last = pending.empty();
    if (name == ".") {
      if (last) {
        int fd = ::openat(top(), ".", flags | O_CLOEXEC);
        int e = errno;
        close_all(stack);
        return fd < 0 ? -e : fd;
      }
      continue;
    }
    if (name == "..") {
      if (!stack.empty()) {
        ::close(stack.back());
        stack.pop_back();
      }
      if (last) pending.emplace_back(".");
      continue;
    }
    int fd = ::openat(top(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      int e = errno;
      close_all(stack);
      return -e;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      int e = errno;
      ::close(fd);
      close_all(stack);
      return -e;
    }
    if (S_ISLNK(st.st_mode) && (!last || follow_last)) {
      char buf[4096];
      ssize_t n = ::readlinkat(fd, "", buf, sizeof buf - 1);
      int e = errno;
      ::close(fd);
      if (n < 0 || ++hops > kMaxLinkHops) {
        close_all(stack);
        return n < 0 ? -e : -ELOOP;
      }
      std::string_view target(buf, static_cast<std::size_t>(n));
      if (!target.empty() && target.front() == '/') close_all(stack);
      auto more = components(target);
      if (more.empty()) more.emplace_back(".");
      pending.insert(pending.begin(), more.begin(), more.end());
      continue;
    }
    if (last) {
      ::close(fd);
      // O_NOFOLLOW: the component was not a link when looked at; if it became one since, fail.
      int out = ::openat(top(), name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC);
      int e = errno;
      close_all(stack);
      return out < 0 ? -e : out;
    }
    if (!S_ISDIR(st.st_mode)) {
      ::close(fd);
      close_all(stack);
      return -ENOTDIR;
    }
    stack.push_back(fd);
  }
  close_all(stack);
  return -ENOENT;
}

// Opens `abs` under `root` with RESOLVE_IN_ROOT semantics. Returns a descriptor or -errno.
int open_in_root(const std::string& root, std::string_view abs, int flags) {
  if (root == "/") {
    int fd = ::open(std::string(abs).c_str(), flags | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
  }
  int root_fd = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) return -errno;
  std::string rel(abs);
  while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
  if (rel.empty()) rel = ".";
  int fd = -ENOSYS;
  if (!g_force_walk.load() && !g_no_openat2.load()) {
    open_how how{};
    how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    long r = ::syscall(SYS_openat2, root_fd, rel.c_str(), &how, sizeof how);
    fd = r < 0 ? -errno : static_cast<int>(r);
    if (fd == -ENOSYS) g_no_openat2.store(true);
  }
  if (fd == -ENOSYS) fd = walk_in_root(root_fd, rel, flags);
  ::close(root_fd);
  return fd;
}

}  // namespace

std::string errno_text(int err) { return std::generic_category().message(err); }

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
  // O_NONBLOCK: a FIFO or character device must never block a collector.
  int fd = open_in_root(root_, abs, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return fail(-fd, abs);
  return read_checked(fd, std::string(abs), max_bytes);
}

Result<int> HostRoot::open(std::string_view abs, int flags) const {
  int fd = open_in_root(root_, abs, flags);
  if (fd < 0) return fail(-fd, abs).error();
  return fd;
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
  return list_names(*this, abs, [](std::string_view) { return true; });
}

Result<std::string> HostRoot::read_link(std::string_view abs) const {
  int fd = open_in_root(root_, abs, O_PATH | O_NOFOLLOW);
  if (fd < 0) return fail(-fd, abs);
  char buf[4096];
  ssize_t n = ::readlinkat(fd, "", buf, sizeof buf - 1);
  int e = errno;
  ::close(fd);
  if (n < 0) return fail(e == ENOENT ? EINVAL : e, abs);
  return std::string(buf, static_cast<std::size_t>(n));
}

bool HostRoot::exists(std::string_view abs) const {
  int fd = open_in_root(root_, abs, O_PATH | O_NOFOLLOW);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

void host_root_force_walk_for_testing(bool on) { g_force_walk.store(on); }

Result<std::size_t> pread_full(int fd, std::uint64_t offset, char* dst, std::size_t n, const std::string& name) {
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, dst + got, n - got, static_cast<off_t>(offset + got));
    if (r == 0) break;
    if (r < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      return make_error(error_kind_from_errno(e), name + ": read failed (" + errno_text(e) + ")");
    }
    got += static_cast<std::size_t>(r);
  }
  return got;
}

namespace {

// open_user_file, also giving the file's size.
Result<int> open_user_file_sized(const std::string& path, std::size_t& size) {
  // O_NONBLOCK so that opening a FIFO with no writer returns at once; cleared before reading.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return fail(errno, path).error();
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return fail(e, path).error();
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorKind::invalid, path + " is a directory");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorKind::invalid, path + ": not a regular file");
  }
  int fl = ::fcntl(fd, F_GETFL);
  if (fl >= 0) ::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  size = static_cast<std::size_t>(st.st_size);
  return fd;
}

}  // namespace

Result<int> open_user_file(const std::string& path) {
  std::size_t size = 0;
  return open_user_file_sized(path, size);
}

Result<std::string> read_user_file(const std::string& path, std::size_t max_bytes) {
  std::size_t size = 0;
  auto fd = open_user_file_sized(path, size);
  if (!fd) return fd.error();
  return read_fd_all(*fd, path, max_bytes, size);
}

}  // namespace plumb
