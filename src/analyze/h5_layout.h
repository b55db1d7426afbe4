// HDF5 file layouts for `plumb h5`: datasets with dtype, shape, chunking and the filter pipeline,
// read through libhdf5 loaded at run time (no build dependency), and the checks on them: the
// field guide's "data consistency illusion" (compressor ids differing between platforms).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/result.h"

namespace plumb {

struct H5Filter {
  int id = 0;                   // H5Z_filter_t: 1 deflate, 2 shuffle, 3 fletcher32, 4 szip, 32000 lzf, ...
  std::string name;             // as stored in the file, else our name for the id
  std::vector<unsigned> options;  // cd_values (deflate: level)
  bool optional = false;        // H5Z_FLAG_OPTIONAL
  bool available = false;       // H5Zfilter_avail in the library plumb loaded
  bool operator==(const H5Filter&) const = default;
};

struct H5Dataset {
  std::string path;                  // "/group/data"
  std::string dtype;                 // "float32 LE", "int64 LE", "string", "compound (24 B)"
  std::vector<std::uint64_t> shape;
  std::string layout;                // contiguous | chunked | compact | virtual
  std::vector<std::uint64_t> chunks;
  std::vector<H5Filter> filters;
};

struct H5FileLayout {
  std::string file;
  std::string library;  // "libhdf5_serial.so.103 (HDF5 1.10.8)"
  std::vector<H5Dataset> datasets;
};

// Loads libhdf5 (lib_path, else PLUMB_HDF5_LIB, else the usual sonames) once; the error says why.
Result<std::string> load_hdf5(const std::string& lib_path);
// Reads every dataset of a file (links visited by name). Needs load_hdf5 first.
Result<H5FileLayout> read_h5_layout(const std::string& file);

// "deflate", "szip", "lzf", ... for well-known filter ids (HDF5 filter registry).
std::string h5_filter_name(int id);

// One finding per dataset: l3.data.h5_filters (szip, filters unavailable here, plugin filters,
// no explicit filter).
std::vector<Finding> judge_h5_layout(const H5FileLayout& f);

struct H5Difference {
  std::string dataset;
  std::string field;  // "dtype", "shape", "chunks", "filters", "present"
  std::string a, b;
};
std::vector<H5Difference> compare_h5_layouts(const H5FileLayout& a, const H5FileLayout& b);
std::string filters_text(const std::vector<H5Filter>& f);

}  // namespace plumb
