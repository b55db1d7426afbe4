// Output comparison: numpy.isclose semantics (numpy/_core/numeric.py: |a-b| <= atol + rtol*|b|,
// infinities equal only when identical, NaN equal only with equal_nan) and Polygraphy's rule
// (polygraphy/comparator/compare.py: an element fails only when both the absolute and the
// relative difference exceed their tolerances), with max/mean/median/p99 of both errors.
#include "analyze/outdiff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace plumb {

namespace {

// numpy.percentile's default (linear) interpolation; reorders `v`.
double quantile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  double pos = q * static_cast<double>(v.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(pos));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  double a = v[lo];
  if (lo + 1 >= v.size() || pos == static_cast<double>(lo)) return a;
  double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return a + (b - a) * (pos - static_cast<double>(lo));
}

std::string value_text(double re, double im, bool complex) {
  char buf[80];
  if (complex) {
    std::snprintf(buf, sizeof buf, "%.9g%+.9gj", re, im);
  } else {
    std::snprintf(buf, sizeof buf, "%.9g", re);
  }
  return buf;
}

// Element strides (in elements) of the storage order, so the walk goes in logical row-major order.
std::vector<std::uint64_t> strides(const NpyArray& a) {
  std::vector<std::uint64_t> s(a.shape.size(), 1);
  if (a.fortran) {
    for (std::size_t k = 1; k < a.shape.size(); ++k) s[k] = s[k - 1] * std::max<std::uint64_t>(a.shape[k - 1], 1);
  } else {
    for (std::size_t k = a.shape.size(); k-- > 1;) s[k - 1] = s[k] * std::max<std::uint64_t>(a.shape[k], 1);
  }
  return s;
}

}  // namespace

bool values_close(double are, double aim, double bre, double bim, const OutdiffOptions& o) {
  bool afin = std::isfinite(are) && std::isfinite(aim);
  bool bfin = std::isfinite(bre) && std::isfinite(bim);
  if (!afin || !bfin) {
    bool anan = std::isnan(are) || std::isnan(aim);
    bool bnan = std::isnan(bre) || std::isnan(bim);
    if (anan || bnan) return o.equal_nan && anan && bnan;
    return are == bre && aim == bim;
  }
  double diff = std::hypot(are - bre, aim - bim);
  double mag = std::hypot(bre, bim);
  if (o.mode == "polygraphy") {
    bool abs_fail = diff > o.atol;
    bool rel_fail = mag > 0 ? diff / mag > o.rtol : diff > 0;
    return !(abs_fail && rel_fail);
  }
  return diff <= o.atol + o.rtol * mag;
}

OutdiffArray compare_arrays(const std::string& name, const NpyArray& a, const NpyArray& b, const OutdiffOptions& o) {
  OutdiffArray r;
  r.name = name;
  r.dtype_a = a.descr;
  r.dtype_b = b.descr;
  r.shape_a = a.shape;
  r.shape_b = b.shape;
  r.fortran_a = a.fortran;
  r.fortran_b = b.fortran;
  if (a.shape != b.shape) {
    r.status = "shape";
    std::string how;
    if (a.shape.size() != b.shape.size()) {
      how = std::to_string(a.shape.size()) + " vs " + std::to_string(b.shape.size()) + " dimensions";
    } else {
      for (std::size_t k = 0; k < a.shape.size(); ++k) {
        if (a.shape[k] != b.shape[k]) {
          how += (how.empty() ? "" : ", ") + std::string("axis ") + std::to_string(k) + ": " + std::to_string(a.shape[k]) +
                 " vs " + std::to_string(b.shape[k]);
        }
      }
    }
    if (a.count == b.count) how += " (same element count: a reshape or transpose?)";
    r.detail = npy_shape_text(a.shape) + " vs " + npy_shape_text(b.shape) + ": " + how;
    return r;
  }
  if (a.descr != b.descr) r.detail = "dtype " + a.descr + " vs " + b.descr + ", compared as values";
  r.elements = a.count;
  const bool complex = a.kind == NpyKind::complex || b.kind == NpyKind::complex;
  auto sa = strides(a), sb = strides(b);
  std::vector<std::uint64_t> idx(a.shape.size(), 0);
  std::vector<double> abs_err, rel_err;
  abs_err.reserve(static_cast<std::size_t>(a.count));
  double sum_abs = 0, sum_rel = 0;
  std::uint64_t oa = 0, ob = 0;
  for (std::uint64_t n = 0; n < a.count; ++n) {
    double are = 0, aim = 0, bre = 0, bim = 0;
    a.value(oa, are, aim);
    b.value(ob, bre, bim);
    bool close = values_close(are, aim, bre, bim, o);
    bool finite = std::isfinite(are) && std::isfinite(aim) && std::isfinite(bre) && std::isfinite(bim);
    if (!finite) ++r.nonfinite;
    if (!close) {
      ++r.mismatches;
      if (std::isnan(are) || std::isnan(aim) || std::isnan(bre) || std::isnan(bim)) ++r.nan_mismatches;
      if (r.mismatches == 1) {
        r.first_mismatch = idx;
        r.first_values = "a=" + value_text(are, aim, complex) + " b=" + value_text(bre, bim, complex);
      }
    }
    if (finite) {
      double d = std::hypot(are - bre, aim - bim);
      double m = std::hypot(bre, bim);
      abs_err.push_back(d);
      sum_abs += d;
      r.max_abs = std::max(r.max_abs, d);
      if (m > 0) {
        double rel = d / m;
        rel_err.push_back(rel);
        sum_rel += rel;
        r.max_rel = std::max(r.max_rel, rel);
      }
    }
    // Advance the logical index (last axis fastest) and both storage offsets.
    for (std::size_t k = idx.size(); k-- > 0;) {
      if (++idx[k] < a.shape[k]) {
        oa += sa[k];
        ob += sb[k];
        break;
      }
      oa -= sa[k] * (a.shape[k] - 1);
      ob -= sb[k] * (a.shape[k] - 1);
      idx[k] = 0;
    }
  }
  if (!abs_err.empty()) r.mean_abs = sum_abs / static_cast<double>(abs_err.size());
  if (!rel_err.empty()) r.mean_rel = sum_rel / static_cast<double>(rel_err.size());
  r.median_abs = quantile(abs_err, 0.5);
  r.p99_abs = quantile(abs_err, 0.99);
  r.median_rel = quantile(rel_err, 0.5);
  r.p99_rel = quantile(rel_err, 0.99);
  return r;
}

Result<OutdiffFacts> outdiff_files(const std::string& file_a, const std::string& file_b, const OutdiffOptions& o) {
  auto ma = read_array_file(file_a);
  if (!ma) return ma.error();
  auto mb = read_array_file(file_b);
  if (!mb) return mb.error();
  OutdiffFacts f;
  f.collected = true;
  f.file_a = file_a;
  f.file_b = file_b;
  f.mode = o.mode;
  f.atol = o.atol;
  f.rtol = o.rtol;
  f.equal_nan = o.equal_nan;
  const bool single = ma->size() == 1 && mb->size() == 1 && !file_a.ends_with(".npz") && !file_b.ends_with(".npz");
  if (single) {
    const auto& a = ma->front();
    const auto& b = mb->front();
    if (!a.array) return make_error(ErrorKind::invalid, file_a + ": " + a.array.error().message);
    if (!b.array) return make_error(ErrorKind::invalid, file_b + ": " + b.array.error().message);
    f.arrays.push_back(compare_arrays(a.name == b.name ? a.name : a.name + " vs " + b.name, *a.array, *b.array, o));
    return f;
  }
  std::map<std::string, const NpzMember*> in_b;
  for (const auto& m : *mb) in_b[m.name] = &m;
  std::map<std::string, bool> seen;
  for (const auto& m : *ma) {
    seen[m.name] = true;
    auto it = in_b.find(m.name);
    OutdiffArray r;
    r.name = m.name;
    if (it == in_b.end()) {
      r.status = "missing_b";
      r.detail = "only in " + file_a;
    } else if (!m.array || !it->second->array) {
      r.status = "dtype";
      r.detail = !m.array ? m.array.error().message : it->second->array.error().message;
    } else {
      r = compare_arrays(m.name, *m.array, *it->second->array, o);
    }
    f.arrays.push_back(std::move(r));
  }
  for (const auto& m : *mb) {
    if (seen.count(m.name) != 0) continue;
    OutdiffArray r;
    r.name = m.name;
    r.status = "missing_a";
    r.detail = "only in " + file_b;
    f.arrays.push_back(std::move(r));
  }
  if (f.arrays.empty()) return make_error(ErrorKind::invalid, "no arrays in " + file_a + " or " + file_b);
  return f;
}

}  // namespace plumb
