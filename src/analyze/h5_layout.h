// HDF5 file layouts for `plumb h5`: datasets with dtype, shape, chunking and the filter pipeline,
// read through libhdf5 loaded at run time (no build dependency), and the layout differences of two
// files. The checks on them (l3.data.h5_filters) are in rules/data_h5.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/facts/h5.h"
#include "core/result.h"

namespace plumb {

// Loads libhdf5 (lib_path, else PLUMB_HDF5_LIB, else the usual sonames) once; the error says why.
Result<std::string> load_hdf5(const std::string& lib_path);
// Reads every dataset of a file (links visited by name). Needs load_hdf5 first.
Result<H5FileLayout> read_h5_layout(const std::string& file);

// "deflate", "szip", "lzf", ... for well-known filter ids (HDF5 filter registry).
std::string h5_filter_name(int id);

std::vector<H5Difference> compare_h5_layouts(const H5FileLayout& a, const H5FileLayout& b);
std::string filters_text(const std::vector<H5Filter>& f);
// "(1024, 16)"
std::string h5_dims_text(const std::vector<std::uint64_t>& d);

}  // namespace plumb
