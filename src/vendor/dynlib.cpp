// dlopen/dlsym behind Result; see vendor/dynlib.h.
#include "vendor/dynlib.h"
#include "core/host_root.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <optional>
#include <system_error>

namespace plumb::dynlib {

Result<Library> open(const std::string& path_or_name) {
  if (path_or_name.empty()) return make_error(ErrorKind::invalid, "empty library name");
  if (path_or_name.find('/') != std::string::npos) {
    struct stat st {};
    if (::stat(path_or_name.c_str(), &st) != 0) {
      int e = errno;
      return make_error(e == ENOENT || e == ENOTDIR ? ErrorKind::absent : e == EACCES ? ErrorKind::denied : ErrorKind::io,
                        path_or_name + " not found (" + errno_text(e) + ")");
    }
    if (!S_ISREG(st.st_mode)) {
      return make_error(ErrorKind::invalid, path_or_name + " is not a regular file, not a shared library");
    }
  }
  ::dlerror();  // NOLINT(concurrency-mt-unsafe): glibc keeps dlerror state per thread
  void* h = ::dlopen(path_or_name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* e = ::dlerror();  // NOLINT(concurrency-mt-unsafe): per thread in glibc
    std::string why = e != nullptr ? e : "unknown dlopen error";
    if (why.find("No such file") != std::string::npos) {
      return make_error(ErrorKind::absent, path_or_name + " not found (" + why + ")");
    }
    return make_error(ErrorKind::io, "cannot load " + path_or_name + ": " + why);
  }
  return Library{h, path_or_name};
}

Result<Library> open_first(std::initializer_list<std::string> names) {
  std::optional<Error> first;
  std::optional<Error> refused;  // the first reason other than "absent": it says more
  for (const auto& n : names) {
    auto lib = open(n);
    if (lib) return lib;
    if (!first) first = lib.error();
    if (!refused && lib.error().kind != ErrorKind::absent) refused = lib.error();
  }
  if (refused) return *refused;
  if (first) return *first;
  return make_error(ErrorKind::invalid, "no library name given");
}

namespace {

// Why `st` (of `what`) may not be trusted by `uid`; empty when it may.
std::string untrusted(const std::string& what, const struct stat& st, unsigned uid) {
  if (st.st_uid != 0 && st.st_uid != uid) return what + " is owned by uid " + std::to_string(st.st_uid);
  const bool dir = S_ISDIR(st.st_mode);
  const bool sticky = dir && (st.st_mode & S_ISVTX) != 0;
  if ((st.st_mode & S_IWOTH) != 0 && !sticky) return what + " is writable by everyone";
  if ((st.st_mode & S_IWGRP) != 0 && st.st_gid != 0 && !sticky) {
    return what + " is writable by group " + std::to_string(st.st_gid);
  }
  return {};
}

}  // namespace

std::string load_refusal(const std::string& path, unsigned uid) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) {
    const int e = errno;
    return path + " cannot be resolved (" + errno_text(e) + ")";
  }
  std::string real(resolved);
  std::free(resolved);  // NOLINT(cppcoreguidelines-no-malloc): realpath(3) allocates with malloc
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0) {
    const int e = errno;
    return real + ": " + errno_text(e);
  }
  if (std::string why = untrusted(real, st, uid); !why.empty()) return why;
  for (std::string dir = real; dir.size() > 1;) {
    auto slash = dir.rfind('/');
    dir = slash == 0 ? std::string("/") : dir.substr(0, slash);
    if (::stat(dir.c_str(), &st) != 0) {
      const int e = errno;
      return dir + ": " + errno_text(e);
    }
    if (std::string why = untrusted(dir, st, uid); !why.empty()) return why;
  }
  return {};
}

std::string load_refusal_as_root(const std::string& path) {
  if (::geteuid() != 0) return {};
  std::string why = load_refusal(path, 0);
  if (!why.empty()) why += " (plumb runs as root)";
  return why;
}

void* symbol(const Library& lib, const char* name) {
  if (lib.handle == nullptr || name == nullptr) return nullptr;
  return ::dlsym(lib.handle, name);
}

}  // namespace plumb::dynlib
