// dlopen/dlsym behind Result; see vendor/dynlib.h.
#include "vendor/dynlib.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <optional>

namespace plumb::dynlib {

Result<Library> open(const std::string& path_or_name) {
  if (path_or_name.empty()) return make_error(ErrorKind::invalid, "empty library name");
  if (path_or_name.find('/') != std::string::npos) {
    struct stat st {};
    if (::stat(path_or_name.c_str(), &st) != 0) {
      int e = errno;
      return make_error(e == ENOENT || e == ENOTDIR ? ErrorKind::absent : e == EACCES ? ErrorKind::denied : ErrorKind::io,
                        path_or_name + " not found (" + std::strerror(e) + ")");
    }
    if (!S_ISREG(st.st_mode)) {
      return make_error(ErrorKind::invalid, path_or_name + " is not a regular file, not a shared library");
    }
  }
  ::dlerror();
  void* h = ::dlopen(path_or_name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* e = ::dlerror();
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

void* symbol(const Library& lib, const char* name) {
  if (lib.handle == nullptr || name == nullptr) return nullptr;
  return ::dlsym(lib.handle, name);
}

}  // namespace plumb::dynlib
