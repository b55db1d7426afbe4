// HostRoot: the one place that turns an absolute system path (/proc, /sys, /dev, /etc, /run)
// into a path under --root, so a fixture tree can stand in for a machine (node_exporter's
// --path.procfs idea). No other code spells a root-prefixed path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace plumb {

class HostRoot {
 public:
  explicit HostRoot(std::string root = "/");

  // "/" or the fixture directory, without a trailing slash unless it is "/".
  [[nodiscard]] const std::string& root() const { return root_; }
  [[nodiscard]] bool is_live() const { return root_ == "/"; }

  // Absolute system path -> real path to open. `abs` must start with '/'.
  [[nodiscard]] std::string path(std::string_view abs) const;

  // Whole-file read of a (pseudo) file, at most max_bytes. Errors carry the display path.
  [[nodiscard]] Result<std::string> read(std::string_view abs, std::size_t max_bytes = 4u << 20) const;
  // First line of a sysfs-style value file, whitespace-trimmed.
  [[nodiscard]] Result<std::string> read_value(std::string_view abs) const;
  // Entry names of a directory, sorted, without "." and "..".
  [[nodiscard]] Result<std::vector<std::string>> list(std::string_view abs) const;
  // Target of a symbolic link (as stored in the link).
  [[nodiscard]] Result<std::string> read_link(std::string_view abs) const;
  [[nodiscard]] bool exists(std::string_view abs) const;
  // Opens `abs` resolved inside the root (a jail: absolute symlinks and ".." never leave the
  // tree; at most 40 link hops). `flags` are open(2) flags; O_NOFOLLOW keeps a final symlink.
  // The caller owns the descriptor. With the root "/" this is a plain open(2).
  [[nodiscard]] Result<int> open(std::string_view abs, int flags) const;

 private:
  std::string root_;
};

// Reads a file that is not under the root (a user-given trace, log or config path).
// Anything but a regular file (a FIFO, socket or device) is refused without blocking.
Result<std::string> read_user_file(const std::string& path, std::size_t max_bytes = 256u << 20);

// Opens a user-given path for reading without blocking on a FIFO, and refuses anything but a
// regular file ("not a regular file"); the descriptor comes back blocking. The caller owns it.
Result<int> open_user_file(const std::string& path);

// pread(2) from `offset` until `n` bytes, the end of the file or an error (EINTR retried): the
// count read. The error names `name`. Safe to call from several threads on one descriptor.
Result<std::size_t> pread_full(int fd, std::uint64_t offset, char* dst, std::size_t n, const std::string& name);

// Tests only: resolve inside the root by the component walk even where openat2(2) exists.
void host_root_force_walk_for_testing(bool on);

// Maps errno to our error kinds.
ErrorKind error_kind_from_errno(int err);
// strerror's text for an errno value, safe from any thread (std::strerror may return one buffer
// shared by all threads; the collectors and the benchmarks' workers report errors at once).
std::string errno_text(int err);

std::string_view trim(std::string_view s);

}  // namespace plumb
