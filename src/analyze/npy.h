// NumPy array files: .npy (format versions 1.0, 2.0 and 3.0, as numpy.lib.format writes them) and
// .npz (a zip archive of .npy members, stored or deflated). Only numeric dtypes are decoded (bool,
// signed and unsigned integers of 1-8 bytes, float16/32/64, complex64/128) in either byte order
// and in C or Fortran order. Every size read from the file is bounded before it is trusted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace plumb {

struct NpyLimits {
  std::size_t max_header = 65536;                  // header length field (numpy itself reads up to 10000 by default)
  std::size_t max_dims = 64;                       // numpy 2 allows 64 dimensions
  std::uint64_t max_data_bytes = 512ull << 20;     // one array's data
  std::size_t max_entries = 4096;                  // .npz members
  std::uint64_t max_total_bytes = 1024ull << 20;   // all decompressed .npz members together
};

enum class NpyKind { boolean, signed_int, unsigned_int, floating, complex };

struct NpyArray {
  std::string descr;                 // as stored: "<f4", ">i8", "|b1", "<c16"
  NpyKind kind = NpyKind::floating;
  int itemsize = 0;                  // bytes per element (a complex element holds both parts)
  bool swap = false;                 // stored in the other byte order than this machine's
  bool fortran = false;              // column-major storage
  std::vector<std::uint64_t> shape;
  std::uint64_t count = 0;           // product of shape (1 for a 0-d array)
  std::string data;                  // count * itemsize bytes, in storage order

  // Element at storage position i as (real, imaginary); imaginary is 0 for non-complex kinds.
  // int64/uint64 values beyond 2^53 are rounded to the nearest double.
  void value(std::uint64_t i, double& re, double& im) const;
};

// Parses one .npy image. Errors are one line ("unsupported dtype '|O' (object)").
Result<NpyArray> parse_npy(std::string_view bytes, const NpyLimits& limits = {});

// One member of an .npz archive: its name without ".npy", and the array or why it is unusable
// (a member with an unsupported dtype does not make the whole archive unreadable).
struct NpzMember {
  std::string name;
  Result<NpyArray> array = Error{ErrorKind::invalid, "not read"};
};

// Parses a zip archive of .npy members (central directory, zip64 extra fields, stored or deflate).
Result<std::vector<NpzMember>> parse_npz(std::string_view bytes, const NpyLimits& limits = {});

// Reads a user-given file through open_user_file: an .npz (zip magic) or an .npy (numpy magic);
// a lone .npy becomes one member named after the file.
Result<std::vector<NpzMember>> read_array_file(const std::string& path, const NpyLimits& limits = {});

// A version 1.0 .npy image of C-order data already in `descr`'s byte order.
std::string npy_image(const std::string& descr, const std::vector<std::uint64_t>& shape, std::string_view data);

// "(2, 3)" / "()" for a 0-d array.
std::string npy_shape_text(const std::vector<std::uint64_t>& shape);

}  // namespace plumb
