// Comparison of two backends' outputs (`plumb outdiff A B`): element by element in logical
// (row-major) order whatever the storage order, with numpy.isclose's tolerance rule or
// Polygraphy's, and the error statistics Polygraphy prints. B is the reference.
#pragma once

#include <string>

#include "analyze/npy.h"
#include "core/facts/outdiff.h"

namespace plumb {

struct OutdiffOptions {
  std::string mode = "numpy";  // numpy | polygraphy
  double atol = 1e-8;
  double rtol = 1e-5;
  bool equal_nan = false;
};

// numpy.isclose / Polygraphy's rule for one pair of (real or complex) values; |x| is the modulus.
// numpy: |a-b| <= atol + rtol*|b|. polygraphy: close unless |a-b| > atol and |a-b|/|b| > rtol.
// Both: NaN equals NaN only with equal_nan; an infinity equals only the same infinity.
bool values_close(double are, double aim, double bre, double bim, const OutdiffOptions& o);

OutdiffArray compare_arrays(const std::string& name, const NpyArray& a, const NpyArray& b, const OutdiffOptions& o);

// Reads both files and compares them (.npy with .npy: one array; .npz: by member name). Errors
// are bad input (unreadable file, malformed array).
Result<OutdiffFacts> outdiff_files(const std::string& file_a, const std::string& file_b, const OutdiffOptions& o);

}  // namespace plumb
