// libhdf5 through one function table: see vendor/hdf5.h.
#include "vendor/hdf5.h"

#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <vector>

#include "vendor/dynlib.h"

namespace plumb::hdf5 {

Api& api() {
  static Api a;
  return a;
}

namespace {

template <class Fn>
bool bind_symbol(const dynlib::Library& h, Fn& fn, std::initializer_list<const char*> names) {
  return dynlib::resolve(h, fn, names) >= 0;
}

}  // namespace

Result<std::string> load(const std::string& lib_path) {
  Api& a = api();
  if (a.handle != nullptr) return a.soname + " (HDF5 " + std::to_string(a.major) + "." + std::to_string(a.minor) + "." +
                                   std::to_string(a.release) + ")";
  std::vector<std::string> tries;
  if (!lib_path.empty()) {
    tries.push_back(lib_path);
  } else {
    const char* env = std::getenv("PLUMB_HDF5_LIB");  // NOLINT(concurrency-mt-unsafe)
    if (env != nullptr && *env != '\0') tries.emplace_back(env);
    // Debian/Ubuntu name the serial build libhdf5_serial; others ship plain libhdf5.
    for (const char* n : {"libhdf5_serial.so.310", "libhdf5.so.310", "libhdf5_serial.so.200", "libhdf5.so.200",
                          "libhdf5_serial.so.103", "libhdf5.so.103", "libhdf5.so"}) {
      tries.emplace_back(n);
    }
  }
  std::optional<dynlib::Library> h;
  std::string errors;
  std::string chosen;
  for (const auto& t : tries) {
    auto lib = dynlib::open(t);
    if (lib) {
      h = *lib;
      chosen = t;
      break;
    }
    if (errors.empty()) errors = lib.error().message;
  }
  if (!h) {
    return make_error(ErrorKind::absent, "no HDF5 library found (" + errors +
                                             "); install libhdf5-103-1 (Debian 12) or pass --hdf5-lib PATH");
  }
  bool ok = bind_symbol(*h, a.open, {"H5open"}) && bind_symbol(*h, a.get_libversion, {"H5get_libversion"}) &&
            bind_symbol(*h, a.eset_auto2, {"H5Eset_auto2"}) && bind_symbol(*h, a.eclear2, {"H5Eclear2"}) &&
            bind_symbol(*h, a.fopen, {"H5Fopen"}) &&
            bind_symbol(*h, a.fclose, {"H5Fclose"}) && bind_symbol(*h, a.lvisit, {"H5Lvisit2", "H5Lvisit", "H5Lvisit1"}) &&
            bind_symbol(*h, a.dopen2, {"H5Dopen2"}) && bind_symbol(*h, a.dclose, {"H5Dclose"}) &&
            bind_symbol(*h, a.dget_type, {"H5Dget_type"}) && bind_symbol(*h, a.dget_space, {"H5Dget_space"}) &&
            bind_symbol(*h, a.dget_create_plist, {"H5Dget_create_plist"}) && bind_symbol(*h, a.tget_class, {"H5Tget_class"}) &&
            bind_symbol(*h, a.tget_size, {"H5Tget_size"}) && bind_symbol(*h, a.tget_order, {"H5Tget_order"}) &&
            bind_symbol(*h, a.tget_sign, {"H5Tget_sign"}) && bind_symbol(*h, a.tclose, {"H5Tclose"}) &&
            bind_symbol(*h, a.sget_simple_extent_ndims, {"H5Sget_simple_extent_ndims"}) &&
            bind_symbol(*h, a.sget_simple_extent_dims, {"H5Sget_simple_extent_dims"}) && bind_symbol(*h, a.sclose, {"H5Sclose"}) &&
            bind_symbol(*h, a.pget_layout, {"H5Pget_layout"}) && bind_symbol(*h, a.pget_chunk, {"H5Pget_chunk"}) &&
            bind_symbol(*h, a.pget_nfilters, {"H5Pget_nfilters"}) && bind_symbol(*h, a.pget_filter2, {"H5Pget_filter2"}) &&
            bind_symbol(*h, a.pclose, {"H5Pclose"}) && bind_symbol(*h, a.zfilter_avail, {"H5Zfilter_avail"});
  if (!ok) {
    a = Api{};  // left loaded: dynlib never closes a library
    return make_error(ErrorKind::unsupported, chosen + " lacks HDF5 1.10 functions");
  }
  a.open();
  a.get_libversion(&a.major, &a.minor, &a.release);
  if (a.major < 1 || (a.major == 1 && a.minor < 10)) {
    std::string v = std::to_string(a.major) + "." + std::to_string(a.minor);
    a = Api{};  // left loaded: dynlib never closes a library
    return make_error(ErrorKind::unsupported, chosen + " is HDF5 " + v + ": plumb needs 1.10 or newer");
  }
  a.eset_auto2(kDefault, nullptr, nullptr);  // no error stacks on stderr: failures are reported by us
  a.handle = h->handle;
  a.soname = chosen;
  return load(lib_path);
}

}  // namespace plumb::hdf5
