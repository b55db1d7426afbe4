// libhdf5 loaded at run time through vendor/dynlib: our own declarations written from the HDF5
// 1.10+ reference manual (hid_t is int64_t since 1.10.0, so older libraries are refused).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/result.h"

namespace plumb::hdf5 {

using hid_t = std::int64_t;
using herr_t = int;
using htri_t = int;
using hsize_t = unsigned long long;
using H5L_iterate_t = herr_t (*)(hid_t group, const char* name, const void* info, void* op_data);

constexpr hid_t kDefault = 0;       // H5P_DEFAULT, H5E_DEFAULT
constexpr unsigned kReadOnly = 0;   // H5F_ACC_RDONLY
constexpr int kIndexName = 0;       // H5_INDEX_NAME
constexpr int kIterNative = 2;      // H5_ITER_NATIVE
constexpr unsigned kFlagOptional = 1;  // H5Z_FLAG_OPTIONAL

// The function table; every entry is set once load() succeeded.
struct Api {
  void* handle = nullptr;
  std::string soname;
  unsigned major = 0, minor = 0, release = 0;
  herr_t (*open)() = nullptr;
  herr_t (*get_libversion)(unsigned*, unsigned*, unsigned*) = nullptr;
  herr_t (*eset_auto2)(hid_t, void*, void*) = nullptr;
  herr_t (*eclear2)(hid_t) = nullptr;
  hid_t (*fopen)(const char*, unsigned, hid_t) = nullptr;
  herr_t (*fclose)(hid_t) = nullptr;
  herr_t (*lvisit)(hid_t, int, int, H5L_iterate_t, void*) = nullptr;
  hid_t (*dopen2)(hid_t, const char*, hid_t) = nullptr;
  herr_t (*dclose)(hid_t) = nullptr;
  hid_t (*dget_type)(hid_t) = nullptr;
  hid_t (*dget_space)(hid_t) = nullptr;
  hid_t (*dget_create_plist)(hid_t) = nullptr;
  int (*tget_class)(hid_t) = nullptr;
  std::size_t (*tget_size)(hid_t) = nullptr;
  int (*tget_order)(hid_t) = nullptr;
  int (*tget_sign)(hid_t) = nullptr;
  herr_t (*tclose)(hid_t) = nullptr;
  int (*sget_simple_extent_ndims)(hid_t) = nullptr;
  int (*sget_simple_extent_dims)(hid_t, hsize_t*, hsize_t*) = nullptr;
  herr_t (*sclose)(hid_t) = nullptr;
  int (*pget_layout)(hid_t) = nullptr;
  int (*pget_chunk)(hid_t, int, hsize_t*) = nullptr;
  int (*pget_nfilters)(hid_t) = nullptr;
  int (*pget_filter2)(hid_t, unsigned, unsigned*, std::size_t*, unsigned*, std::size_t, char*, unsigned*) = nullptr;
  herr_t (*pclose)(hid_t) = nullptr;
  htri_t (*zfilter_avail)(int) = nullptr;
};

// The process-wide table (empty until load() succeeds).
Api& api();
// Loads libhdf5 once: `lib_path` when given, else $PLUMB_HDF5_LIB, else the Debian/Ubuntu serial
// and plain sonames, newest first. Returns "soname (HDF5 x.y.z)"; errors say what to install.
Result<std::string> load(const std::string& lib_path);

}  // namespace plumb::hdf5
