// Facts of `plumb outdiff A B`: two backends' outputs (.npy or .npz) compared array by array,
// with the tolerance rule that was applied and the error statistics Polygraphy prints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json_fwd.h"

namespace plumb {

// One array compared (a .npy pair, or one name of two .npz archives).
struct OutdiffArray {
  std::string name;                  // the .npz entry without ".npy"; the file name for a .npy pair
  std::string status = "compared";   // compared | shape | missing_a | missing_b | dtype
  std::string detail;                // shape, dtype or presence difference in words
  std::string dtype_a, dtype_b;      // numpy descr as stored: "<f4", ">i8", "|b1", "<c8"
  std::vector<std::uint64_t> shape_a, shape_b;
  bool fortran_a = false, fortran_b = false;
  std::uint64_t elements = 0;
  std::uint64_t mismatches = 0;      // elements outside the tolerance rule
  std::vector<std::uint64_t> first_mismatch;  // index (row-major) of the first one
  std::string first_values;          // "a=1.5 b=1.25" at that index
  std::uint64_t nonfinite = 0;       // element pairs with a NaN or an infinity on either side
  std::uint64_t nan_mismatches = 0;  // of the mismatches: a NaN on one side only (or on both without equal_nan)
  // Statistics over the pairs where both values are finite. Relative error is |a-b| / |b|
  // over the pairs with b != 0 (Polygraphy divides by the reference output B as well).
  double max_abs = 0, mean_abs = 0, median_abs = 0, p99_abs = 0;
  double max_rel = 0, mean_rel = 0, median_rel = 0, p99_rel = 0;
  bool operator==(const OutdiffArray&) const = default;
};
PLUMB_JSON(OutdiffArray, name, status, detail, dtype_a, dtype_b, shape_a, shape_b, fortran_a, fortran_b, elements,
           mismatches, first_mismatch, first_values, nonfinite, nan_mismatches, max_abs, mean_abs, median_abs, p99_abs,
           max_rel, mean_rel, median_rel, p99_rel)

struct OutdiffFacts {
  bool collected = false;           // only `plumb outdiff` fills this area
  std::string file_a, file_b;       // A: the output under test, B: the reference
  std::string mode = "numpy";       // numpy: |a-b| <= atol + rtol*|b|; polygraphy: a mismatch needs both |a-b| > atol and |a-b|/|b| > rtol
  double atol = 1e-8;
  double rtol = 1e-5;
  bool equal_nan = false;           // NaN == NaN counts as equal
  std::vector<OutdiffArray> arrays;
  bool operator==(const OutdiffFacts&) const = default;
};
PLUMB_JSON(OutdiffFacts, collected, file_a, file_b, mode, atol, rtol, equal_nan, arrays)

}  // namespace plumb
