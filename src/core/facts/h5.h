// Facts of HDF5 files as `plumb h5` reads them: each dataset's dtype, shape, layout, chunking and
// filter pipeline (with the filter's availability in the libhdf5 plumb loaded), and with two files
// the layout differences between them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json_fwd.h"

namespace plumb {

struct H5Filter {
  int id = 0;                     // H5Z_filter_t: 1 deflate, 2 shuffle, 3 fletcher32, 4 szip, 32000 lzf, ...
  std::string name;               // as stored in the file, else our name for the id
  std::vector<unsigned> options;  // cd_values (deflate: level)
  bool optional = false;          // H5Z_FLAG_OPTIONAL
  bool available = false;         // H5Zfilter_avail in the library plumb loaded
  bool operator==(const H5Filter&) const = default;
};
PLUMB_JSON(H5Filter, id, name, options, optional, available)

struct H5Dataset {
  std::string path;                  // "/group/data"
  std::string dtype;                 // "float32 LE", "int64 LE", "string", "compound (24 B)"
  std::vector<std::uint64_t> shape;
  std::string layout;                // contiguous | chunked | compact | virtual
  std::vector<std::uint64_t> chunks;
  std::vector<H5Filter> filters;
  bool operator==(const H5Dataset&) const = default;
};
PLUMB_JSON(H5Dataset, path, dtype, shape, layout, chunks, filters)

struct H5FileLayout {
  std::string file;
  std::string library;  // "libhdf5_serial.so.103 (HDF5 1.10.8)"
  std::vector<H5Dataset> datasets;
  bool operator==(const H5FileLayout&) const = default;
};
PLUMB_JSON(H5FileLayout, file, library, datasets)

struct H5Difference {
  std::string dataset;
  std::string field;  // "dtype", "shape", "layout", "filters", "present"
  std::string a, b;
  bool operator==(const H5Difference&) const = default;
};
PLUMB_JSON(H5Difference, dataset, field, a, b)

struct H5Facts {
  bool collected = false;  // only `plumb h5` fills this area
  std::vector<H5FileLayout> files;
  std::vector<H5Difference> differences;  // with two files: A -> B
  bool operator==(const H5Facts&) const = default;
};
PLUMB_JSON(H5Facts, collected, files, differences)

}  // namespace plumb
