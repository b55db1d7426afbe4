// The one dlopen helper of plumb's run-time-loaded libraries (NVML, CUDA, HDF5, TurboJPEG):
// open by path or by a list of names (versioned name first), refuse a path that is not a regular
// file before dlopen (a FIFO given as --nvml-lib must not hang the loader), resolve optional
// symbols with newest-first fallbacks and record which name resolved. Failures are values
// (Result), never exceptions. Libraries are opened RTLD_NOW | RTLD_LOCAL and never closed: a
// thread abandoned inside a stuck call must not find its code unmapped.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "core/result.h"

namespace plumb::dynlib {

struct Library {
  void* handle = nullptr;
  std::string name;  // the path or name that opened
};

// A name without '/' is searched the dynamic loader's way (ld.so.cache, LD_LIBRARY_PATH); a path
// must exist and be a regular file (symlinks followed). Errors: absent (no such file or library),
// invalid (not a regular file), io (dlopen refused it: wrong architecture, missing dependency...).
Result<Library> open(const std::string& path_or_name);
// The first of `names` that opens ("libnvidia-ml.so.1", then "libnvidia-ml.so"). When none does,
// the first reason other than "absent" (a library that exists but cannot load says more), else the
// first name's.
Result<Library> open_first(std::initializer_list<std::string> names);

// Why a process of user `uid` should not load `path`: the file (symlinks resolved) or a folder above
// it is owned by someone other than root and `uid`, or is writable by a group other than root's or by
// everyone (a folder writable by everyone passes with its sticky bit, as /tmp: no one else can
// replace the entry). Empty when it may. Loading a library runs its constructors, and running a
// program (a toolkit's nvcc) runs it: plumb as root must not run code another user can change (the
// rule of OpenSSH's StrictModes, auth.c safe_path()).
std::string load_refusal(const std::string& path, unsigned uid);
// load_refusal for this process when it runs as root (effective uid 0), ending in " (plumb runs as
// root)"; empty otherwise: an unprivileged plumb loads what its user could load anyway.
std::string load_refusal_as_root(const std::string& path);

// The address of `name`, nullptr when the library does not export it.
void* symbol(const Library& lib, const char* name);

// Stores the first of `names` the library exports into `target` and returns its index in `names`
// (-1 and a null target when none resolves). `resolved`, when given, gets the name that resolved.
template <class F>
int resolve(const Library& lib, F& target, std::initializer_list<const char*> names,
            std::vector<std::string>* resolved = nullptr) {
  int i = 0;
  for (const char* n : names) {
    if (void* p = symbol(lib, n)) {
      target = reinterpret_cast<F>(p);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast): dlsym returns void*
      if (resolved != nullptr) resolved->emplace_back(n);
      return i;
    }
    ++i;
  }
  target = nullptr;
  return -1;
}

}  // namespace plumb::dynlib
