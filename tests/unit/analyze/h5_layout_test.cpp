// `plumb h5`: small HDF5 files written in the test through the system's libhdf5 (deflate+shuffle,
// no filter, an unavailable plugin filter), read back, judged and compared.
#include <gtest/gtest.h>
#include <dlfcn.h>

#include <cstdint>

#include "analyze/h5_layout.h"
#include "core/registry.h"
#include "../../test_util.h"

namespace plumb {
namespace {

// The l3.data.h5_filters rule on one file, as `plumb h5 FILE` judges it.
std::vector<Finding> judge_h5_layout(const H5FileLayout& l) {
  Facts facts;
  facts.h5.collected = true;
  facts.h5.files.push_back(l);
  Selection sel;
  sel.only = {"l3.data.h5_filters"};
  return judge(facts, Thresholds(), sel);
}

using hid_t = std::int64_t;
using hsize_t = unsigned long long;

// The few writer functions the test needs, from the same library plumb loads.
struct Writer {
  void* h = nullptr;
  hid_t (*fcreate)(const char*, unsigned, hid_t, hid_t) = nullptr;
  int (*fclose)(hid_t) = nullptr;
  hid_t (*screate_simple)(int, const hsize_t*, const hsize_t*) = nullptr;
  int (*sclose)(hid_t) = nullptr;
  hid_t (*pcreate)(hid_t) = nullptr;
  int (*pclose)(hid_t) = nullptr;
  int (*pset_chunk)(hid_t, int, const hsize_t*) = nullptr;
  int (*pset_deflate)(hid_t, unsigned) = nullptr;
  int (*pset_shuffle)(hid_t) = nullptr;
  int (*pset_filter)(hid_t, int, unsigned, std::size_t, const unsigned*) = nullptr;
  hid_t (*dcreate2)(hid_t, const char*, hid_t, hid_t, hid_t, hid_t, hid_t) = nullptr;
  int (*dclose)(hid_t) = nullptr;
  hid_t (*gcreate2)(hid_t, const char*, hid_t, hid_t, hid_t) = nullptr;
  int (*gclose)(hid_t) = nullptr;
  hid_t* dcpl_class = nullptr;
  hid_t* f32le = nullptr;
  hid_t* i64le = nullptr;

  bool open(const std::string& soname) {
    h = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) return false;
    auto sym = [&](auto& fn, const char* n) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(h, n));  // NOLINT
      return fn != nullptr;
    };
    return sym(fcreate, "H5Fcreate") && sym(fclose, "H5Fclose") && sym(screate_simple, "H5Screate_simple") &&
           sym(sclose, "H5Sclose") && sym(pcreate, "H5Pcreate") && sym(pclose, "H5Pclose") &&
           sym(pset_chunk, "H5Pset_chunk") && sym(pset_deflate, "H5Pset_deflate") &&
           sym(pset_shuffle, "H5Pset_shuffle") && sym(pset_filter, "H5Pset_filter") &&
           sym(dcreate2, "H5Dcreate2") && sym(dclose, "H5Dclose") && sym(gcreate2, "H5Gcreate2") &&
           sym(gclose, "H5Gclose") && sym(dcpl_class, "H5P_CLS_DATASET_CREATE_ID_g") &&
           sym(f32le, "H5T_IEEE_F32LE_g") && sym(i64le, "H5T_STD_I64LE_g");
  }

  // deflate_level < 0: no filter; plugin: add the (unregistered here) LZF filter as optional.
  void write(const std::string& path, int deflate_level, bool plugin, hsize_t rows) const {
    hid_t f = fcreate(path.c_str(), 2u /*H5F_ACC_TRUNC*/, 0, 0);
    ASSERT_GE(f, 0);
    hid_t g = gcreate2(f, "train", 0, 0, 0);
    hsize_t dims[2] = {rows, 16}, chunk[2] = {64, 16};
    hid_t s = screate_simple(2, dims, nullptr);
    hid_t p = pcreate(*dcpl_class);
    if (deflate_level >= 0 || plugin) pset_chunk(p, 2, chunk);
    if (deflate_level >= 0) {
      pset_shuffle(p);
      pset_deflate(p, static_cast<unsigned>(deflate_level));
    }
    if (plugin) pset_filter(p, 32000, 1u /*H5Z_FLAG_OPTIONAL*/, 0, nullptr);
    hid_t d = dcreate2(g, "features", *f32le, s, 0, p, 0);
    ASSERT_GE(d, 0);
    dclose(d);
    hid_t s2 = screate_simple(1, dims, nullptr);
    hid_t d2 = dcreate2(f, "labels", *i64le, s2, 0, 0, 0);
    dclose(d2);
    sclose(s2);
    pclose(p);
    sclose(s);
    gclose(g);
    fclose(f);
  }
};

class H5Test : public ::testing::Test {
 protected:
  void SetUp() override {
    auto lib = load_hdf5("");
    if (!lib) GTEST_SKIP() << lib.error().describe();
    std::string soname = lib->substr(0, lib->find(' '));
    if (!w.open(soname)) GTEST_SKIP() << "cannot bind writer functions in " << soname;
  }
  std::string tmp(const std::string& n) { return ::testing::TempDir() + "/plumb_h5_" + n + ".h5"; }
  Writer w;
};

TEST_F(H5Test, ReadsDatasetsWithDtypeShapeChunksAndFilters) {
  w.write(tmp("gzip"), 1, false, 1024);
  auto l = read_h5_layout(tmp("gzip"));
  ASSERT_TRUE(l.ok()) << l.error().describe();
  ASSERT_EQ(l->datasets.size(), 2u);
  const auto& x = l->datasets[0].path == "/train/features" ? l->datasets[0] : l->datasets[1];
  EXPECT_EQ(x.path, "/train/features");
  EXPECT_EQ(x.dtype, "float32 LE");
  EXPECT_EQ(x.shape, (std::vector<std::uint64_t>{1024, 16}));
  EXPECT_EQ(x.layout, "chunked");
  EXPECT_EQ(x.chunks, (std::vector<std::uint64_t>{64, 16}));
  ASSERT_EQ(x.filters.size(), 2u);
  EXPECT_EQ(x.filters[0].id, 2);
  EXPECT_EQ(x.filters[1].id, 1);
  EXPECT_EQ(x.filters[1].options, (std::vector<unsigned>{1}));
  EXPECT_EQ(filters_text(x.filters), "shuffle(4) + deflate(1)");  // shuffle stores the type size
  auto v = judge_h5_layout(*l);
  ASSERT_EQ(v.size(), 2u);
  for (const auto& f : v) {
    if (f.subject == "/train/features") {
      EXPECT_EQ(f.status, Status::pass);
    }
    if (f.subject == "/labels") {
      EXPECT_EQ(f.variant, "none");  // contiguous, no filter: the defaults
    }
  }
}

TEST_F(H5Test, FilterMissingHereFailsAndComparisonShowsTheDifference) {
  w.write(tmp("gzip2"), 1, false, 1024);
  w.write(tmp("lzf"), -1, true, 2048);
  auto a = read_h5_layout(tmp("gzip2"));
  auto b = read_h5_layout(tmp("lzf"));
  ASSERT_TRUE(a.ok() && b.ok());
  auto v = judge_h5_layout(*b);
  bool failed = false;
  for (const auto& f : v) failed |= f.subject == "/train/features" && f.status == Status::fail && f.variant == "unavailable";
  EXPECT_TRUE(failed);  // Debian's libhdf5 has no LZF filter registered
  auto d = compare_h5_layouts(*a, *b);
  std::vector<std::string> got;
  for (const auto& x : d) got.push_back(x.dataset + " " + x.field + ": " + x.a + " -> " + x.b);
  EXPECT_EQ(got, (std::vector<std::string>{"/labels shape: (1024) -> (2048)",
                                           "/train/features shape: (1024, 16) -> (2048, 16)",
                                           "/train/features filters: shuffle(4) + deflate(1) -> lzf"}));
}

TEST_F(H5Test, NotAnHdf5FileIsAnError) {
  // A text file from the fixtures: nothing on this machine decides the outcome.
  auto r = read_h5_layout(test::fixture("framework/memory/fairseq-v100-16gb-oom-58-ooms-66-retries.txt"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not an HDF5 file"), std::string::npos);
}

}  // namespace
}  // namespace plumb
