// A libhdf5 stand-in whose H5Fopen never returns, for the test that `plumb h5` gives up on a file
// HDF5 keeps reading (a damaged file can send the library into a loop). The other entry points
// are there for the loader's function table and fail; the signatures follow HDF5 1.14's headers.
#include <unistd.h>

#include <cstddef>
#include <cstdint>

using hid_t = std::int64_t;
using herr_t = int;
using hsize_t = unsigned long long;

#define PLUMB_FAKE_EXPORT extern "C" __attribute__((visibility("default")))

PLUMB_FAKE_EXPORT herr_t H5open() { return 0; }
PLUMB_FAKE_EXPORT herr_t H5get_libversion(unsigned* major, unsigned* minor, unsigned* release) {
  *major = 1;
  *minor = 14;
  *release = 0;
  return 0;
}
PLUMB_FAKE_EXPORT herr_t H5Eset_auto2(hid_t /*stack*/, void* /*func*/, void* /*data*/) { return 0; }
PLUMB_FAKE_EXPORT herr_t H5Eclear2(hid_t /*stack*/) { return 0; }
PLUMB_FAKE_EXPORT hid_t H5Fopen(const char* /*name*/, unsigned /*flags*/, hid_t /*fapl*/) {
  for (;;) ::pause();
}
PLUMB_FAKE_EXPORT herr_t H5Fclose(hid_t /*file*/) { return -1; }
PLUMB_FAKE_EXPORT herr_t H5Lvisit2(hid_t /*group*/, int /*index*/, int /*order*/, void* /*op*/, void* /*data*/) { return -1; }
PLUMB_FAKE_EXPORT hid_t H5Dopen2(hid_t /*loc*/, const char* /*name*/, hid_t /*dapl*/) { return -1; }
PLUMB_FAKE_EXPORT herr_t H5Dclose(hid_t /*dset*/) { return -1; }
PLUMB_FAKE_EXPORT hid_t H5Dget_type(hid_t /*dset*/) { return -1; }
PLUMB_FAKE_EXPORT hid_t H5Dget_space(hid_t /*dset*/) { return -1; }
PLUMB_FAKE_EXPORT hid_t H5Dget_create_plist(hid_t /*dset*/) { return -1; }
PLUMB_FAKE_EXPORT int H5Tget_class(hid_t /*type*/) { return -1; }
PLUMB_FAKE_EXPORT std::size_t H5Tget_size(hid_t /*type*/) { return 0; }
PLUMB_FAKE_EXPORT int H5Tget_order(hid_t /*type*/) { return -1; }
PLUMB_FAKE_EXPORT int H5Tget_sign(hid_t /*type*/) { return -1; }
PLUMB_FAKE_EXPORT herr_t H5Tclose(hid_t /*type*/) { return -1; }
PLUMB_FAKE_EXPORT int H5Sget_simple_extent_ndims(hid_t /*space*/) { return -1; }
PLUMB_FAKE_EXPORT int H5Sget_simple_extent_dims(hid_t /*space*/, hsize_t* /*dims*/, hsize_t* /*maxdims*/) { return -1; }
PLUMB_FAKE_EXPORT herr_t H5Sclose(hid_t /*space*/) { return -1; }
PLUMB_FAKE_EXPORT int H5Pget_layout(hid_t /*plist*/) { return -1; }
PLUMB_FAKE_EXPORT int H5Pget_chunk(hid_t /*plist*/, int /*max_ndims*/, hsize_t* /*dims*/) { return -1; }
PLUMB_FAKE_EXPORT int H5Pget_nfilters(hid_t /*plist*/) { return -1; }
PLUMB_FAKE_EXPORT int H5Pget_filter2(hid_t /*plist*/, unsigned /*idx*/, unsigned* /*flags*/, std::size_t* /*cd_nelmts*/,
                                     unsigned* /*cd_values*/, std::size_t /*namelen*/, char* /*name*/,
                                     unsigned* /*filter_config*/) {
  return -1;
}
PLUMB_FAKE_EXPORT herr_t H5Pclose(hid_t /*plist*/) { return -1; }
PLUMB_FAKE_EXPORT int H5Zfilter_avail(int /*id*/) { return -1; }
