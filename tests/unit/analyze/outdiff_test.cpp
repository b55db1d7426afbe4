// The .npy/.npz reader and the output comparison on arrays written by Debian's python3-numpy
// (tests/fixtures/serving/write_arrays.py, run at test time), and the tolerance maths against
// numpy.isclose's own mismatch counts on the same arrays.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analyze/npy.h"
#include "analyze/outdiff.h"
#include "core/subprocess.h"
#include "../../test_util.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;

// The arrays, written once per test binary run into a scratch directory.
const std::string& arrays_dir() {
  static const std::string dir = [] {
    std::string d = (fs::path(::testing::TempDir()) / ("plumb_npy_" + std::to_string(::getpid()))).string();
    fs::remove_all(d);
    fs::create_directories(d);
    auto r = run_program({"/usr/bin/python3", test::fixture("serving/write_arrays.py"), d}, [] {
      RunOptions o;
      o.timeout = std::chrono::seconds(120);
      return o;
    }());
    if (!r || r->exit_code != 0) return std::string();
    return d;
  }();
  return dir;
}

#define NEED_NUMPY()                                                                   \
  if (arrays_dir().empty()) GTEST_SKIP() << "needs /usr/bin/python3 with numpy (python3-numpy) to write the arrays"

std::string npy_v1(const std::string& dict, const std::string& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string s = std::string("\x93NUMPY\x01\x00", 8);
  s += static_cast<char>(header.size() & 0xff);
  s += static_cast<char>(header.size() >> 8);
  return s + header + data;
}

TEST(Npy, ParsesAHandWrittenHeaderAndRefusesMalformedOnes) {
  std::string data(12, '\0');
  float v[3] = {1.5f, -2.0f, 0.25f};
  std::memcpy(data.data(), v, 12);
  auto a = parse_npy(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", data));
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->count, 3u);
  double re = 0, im = 0;
  a->value(1, re, im);
  EXPECT_EQ(re, -2.0);
  // Truncated data, object dtype, overflowing shape, unknown key, too many dims, bad magic.
  EXPECT_FALSE(parse_npy(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", data)));
  auto obj = parse_npy(npy_v1("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", data));
  ASSERT_FALSE(obj);
  EXPECT_NE(obj.error().message.find("unsupported dtype"), std::string::npos);
  auto big = parse_npy(npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }", data));
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("overflows"), std::string::npos);
  EXPECT_FALSE(parse_npy(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}", data)));
  std::string dims = "(";
  for (int i = 0; i < 70; ++i) dims += "1,";
  EXPECT_FALSE(parse_npy(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': " + dims + "), }", data)));
  EXPECT_FALSE(parse_npy("NUMPY and more bytes"));
  EXPECT_FALSE(parse_npy(npy_v1("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }", data)));
}

TEST(Npy, RefusesAnOversizedHeaderLengthAndAZipBomb) {
  std::string s = std::string("\x93NUMPY\x02\x00", 8) + std::string("\xff\xff\xff\x7f", 4) + "{";
  auto r = parse_npy(s);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("exceeds the limit"), std::string::npos);
  NEED_NUMPY();
  auto bytes = read_user_file(arrays_dir() + "/npz/deflate_b.npz");
  ASSERT_TRUE(bytes);
  NpyLimits tight;
  tight.max_total_bytes = 64;  // smaller than the members' declared sizes
  auto z = parse_npz(*bytes, tight);
  ASSERT_FALSE(z);
  EXPECT_NE(z.error().message.find("over the limit"), std::string::npos);
  tight = NpyLimits{};
  tight.max_entries = 2;
  EXPECT_FALSE(parse_npz(*bytes, tight));
}

// Every dtype, byte order, memory order and format version decodes to the reference values.
TEST(Npy, EveryNumericDtypeByteOrderLayoutAndVersionFromNumpy) {
  NEED_NUMPY();
  std::ifstream list(arrays_dir() + "/dtypes/list.txt");
  std::string name, ref;
  int files = 0;
  OutdiffOptions exact;
  exact.atol = 0;
  exact.rtol = 0;
  while (list >> name >> ref) {
    auto d = outdiff_files(arrays_dir() + "/dtypes/" + name, arrays_dir() + "/dtypes/" + ref + ".npy", exact);
    ASSERT_TRUE(d) << name << ": " << d.error().message;
    ASSERT_EQ(d->arrays.size(), 1u);
    EXPECT_EQ(d->arrays[0].status, "compared") << name;
    EXPECT_EQ(d->arrays[0].elements, 24u) << name;
    EXPECT_EQ(d->arrays[0].mismatches, 0u) << name << " first " << d->arrays[0].first_values;
    ++files;
  }
  EXPECT_EQ(files, 13 * 2 * 2 * 3 + 2 * 3);
  // A Fortran-order file is read in logical order: its first element equals the C file's.
  auto f = read_array_file(arrays_dir() + "/dtypes/f4_be_F_v1.npy");
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->front().array->fortran);
  EXPECT_TRUE(f->front().array->swap);
}

// plumb's mismatch counts equal numpy.isclose's, and the statistics equal numpy's mean, median
// and percentile on the same arrays.
TEST(Outdiff, MismatchCountsAndStatisticsMatchNumpy) {
  NEED_NUMPY();
  std::ifstream counts(arrays_dir() + "/tol/counts.txt");
  std::string line;
  int rows = 0;
  while (std::getline(counts, line)) {
    std::istringstream in(line);
    std::string kase;
    double atol = 0, rtol = 0, mean = 0, median = 0, p99 = 0;
    int equal_nan = 0;
    std::uint64_t numpy_count = 0, poly_count = 0;
    in >> kase >> atol >> rtol >> equal_nan >> numpy_count >> poly_count >> mean >> median >> p99;
    OutdiffOptions o;
    o.atol = atol;
    o.rtol = rtol;
    o.equal_nan = equal_nan != 0;
    std::string a = arrays_dir() + "/tol/" + kase + "_a.npy", b = arrays_dir() + "/tol/" + kase + "_b.npy";
    auto d = outdiff_files(a, b, o);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(d->arrays[0].mismatches, numpy_count) << line;
    EXPECT_NEAR(d->arrays[0].mean_abs, mean, std::abs(mean) * 1e-9) << line;
    EXPECT_DOUBLE_EQ(d->arrays[0].median_abs, median) << line;
    EXPECT_NEAR(d->arrays[0].p99_abs, p99, std::abs(p99) * 1e-12) << line;
    o.mode = "polygraphy";
    auto p = outdiff_files(a, b, o);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->arrays[0].mismatches, poly_count) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 16);
}

TEST(Outdiff, NpzArchivesAreComparedByNameWithShapeAndPresenceDifferences) {
  NEED_NUMPY();
  OutdiffOptions o;
  auto d = outdiff_files(arrays_dir() + "/npz/stored_a.npz", arrays_dir() + "/npz/deflate_b.npz", o);
  ASSERT_TRUE(d) << d.error().message;
  std::map<std::string, OutdiffArray> by;
  for (const auto& a : d->arrays) by[a.name] = a;
  ASSERT_EQ(by.size(), 4u);
  EXPECT_EQ(by["logits"].mismatches, 0u);
  EXPECT_EQ(by["ids"].mismatches, 0u);
  EXPECT_EQ(by["probs"].mismatches, 6u);  // +1e-3 everywhere: over 1e-8 + 1e-5 * |b| for all six
  EXPECT_EQ(by["probs"].first_mismatch, std::vector<std::uint64_t>{0});
  EXPECT_NEAR(by["probs"].max_abs, 1e-3, 1e-12);
  EXPECT_EQ(by["extra"].status, "missing_a");
  auto s = outdiff_files(arrays_dir() + "/npz/stored_a.npz", arrays_dir() + "/npz/shape_b.npz", o);
  ASSERT_TRUE(s);
  for (const auto& a : s->arrays) {
    if (a.name == "logits") {
      EXPECT_EQ(a.status, "shape");
      EXPECT_NE(a.detail.find("same element count"), std::string::npos) << a.detail;
    }
  }
  auto obj = outdiff_files(arrays_dir() + "/npz/object.npy", arrays_dir() + "/dtypes/ref_real.npy", o);
  ASSERT_FALSE(obj);
  EXPECT_NE(obj.error().message.find("unsupported dtype"), std::string::npos);
}

TEST(Outdiff, ToleranceRulesOnSingleValues) {
  OutdiffOptions np;
  EXPECT_TRUE(values_close(1.0 + 5e-6, 0, 1.0, 0, np));
  EXPECT_FALSE(values_close(1.0 + 2e-5, 0, 1.0, 0, np));
  EXPECT_FALSE(values_close(NAN, 0, NAN, 0, np));
  np.equal_nan = true;
  EXPECT_TRUE(values_close(NAN, 0, NAN, 0, np));
  EXPECT_TRUE(values_close(INFINITY, 0, INFINITY, 0, np));
  EXPECT_FALSE(values_close(INFINITY, 0, -INFINITY, 0, np));
  OutdiffOptions poly;
  poly.mode = "polygraphy";
  poly.atol = 1e-5;
  poly.rtol = 1e-5;
  EXPECT_TRUE(values_close(1e-7, 0, 0.0, 0, poly));       // absolute check passes
  EXPECT_TRUE(values_close(1000.001, 0, 1000.0, 0, poly));  // relative check passes
  EXPECT_FALSE(values_close(1.001, 0, 1.0, 0, poly));      // both fail
}

}  // namespace
}  // namespace plumb
