// The dataset walk over libhdf5 (loaded by vendor/hdf5) and the layout comparison of `plumb h5`.
#include "analyze/h5_layout.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

#include "core/host_root.h"
#include "vendor/hdf5.h"


namespace plumb {

namespace {

using hdf5::herr_t;
using hdf5::hid_t;
using hdf5::hsize_t;
using hdf5::kDefault;
using hdf5::kFlagOptional;
using hdf5::kIndexName;
using hdf5::kIterNative;
using hdf5::kReadOnly;
using Hdf5Api = hdf5::Api;
using hdf5::api;
Result<std::string> load_once(const std::string& lib_path) { return hdf5::load(lib_path); }

std::string dtype_text(hid_t t) {
  const Hdf5Api& a = api();
  std::size_t size = a.tget_size(t);
  int cls = a.tget_class(t);
  std::string order = a.tget_order(t) == 1 ? " BE" : " LE";
  switch (cls) {
    case 0: return std::string(a.tget_sign(t) == 0 ? "uint" : "int") + std::to_string(size * 8) + order;
    case 1: return "float" + std::to_string(size * 8) + order;
    case 3: return "string (" + std::to_string(size) + " B)";
    case 4: return "bitfield" + std::to_string(size * 8);
    case 5: return "opaque (" + std::to_string(size) + " B)";
    case 6: return "compound (" + std::to_string(size) + " B)";
    case 7: return "reference";
    case 8: return "enum (" + std::to_string(size) + " B)";
    case 9: return "vlen";
    case 10: return "array (" + std::to_string(size) + " B)";
    default: return "class " + std::to_string(cls);
  }
}

struct Walk {
  H5FileLayout* out;
};

herr_t visit(hid_t group, const char* name, const void* /*info*/, void* data) {
  const Hdf5Api& a = api();
  auto* w = static_cast<Walk*>(data);
  if (w->out->datasets.size() >= 100000) return 1;  // stop: a bound on pathological files
  hid_t d = a.dopen2(group, name, kDefault);
  if (d < 0) return 0;  // a group, a dangling or external link: not a dataset
  H5Dataset ds;
  ds.path = std::string("/") + name;
  hid_t t = a.dget_type(d);
  if (t >= 0) {
    ds.dtype = dtype_text(t);
    a.tclose(t);
  }
  hid_t s = a.dget_space(d);
  if (s >= 0) {
    int n = a.sget_simple_extent_ndims(s);
    if (n > 0 && n <= 32) {
      std::vector<hsize_t> dims(static_cast<std::size_t>(n));
      if (a.sget_simple_extent_dims(s, dims.data(), nullptr) == n) ds.shape.assign(dims.begin(), dims.end());
    }
    a.sclose(s);
  }
  hid_t p = a.dget_create_plist(d);
  if (p >= 0) {
    static const char* const kLayouts[] = {"compact", "contiguous", "chunked", "virtual"};
    int layout = a.pget_layout(p);
    ds.layout = layout >= 0 && layout < 4 ? kLayouts[layout] : "unknown";
    if (layout == 2) {
      hsize_t c[32];
      int n = a.pget_chunk(p, 32, c);
      if (n > 0 && n <= 32) ds.chunks.assign(c, c + n);
    }
    int nf = a.pget_nfilters(p);
    for (int i = 0; i >= 0 && i < nf && i < 64; ++i) {
      unsigned flags = 0, cd[32] = {}, config = 0;
      std::size_t nelm = 32;
      char fname[128] = {};
      int id = a.pget_filter2(p, static_cast<unsigned>(i), &flags, &nelm, cd, sizeof fname, fname, &config);
      if (id < 0) continue;
      H5Filter f;
      f.id = id;
      fname[sizeof fname - 1] = '\0';
      f.name = fname[0] != '\0' ? std::string(fname) : h5_filter_name(id);
      f.options.assign(cd, cd + std::min<std::size_t>(nelm, 32));
      f.optional = (flags & kFlagOptional) != 0;
      f.available = a.zfilter_avail(id) > 0;
      ds.filters.push_back(std::move(f));
    }
    a.pclose(p);
  }
  a.dclose(d);
  w->out->datasets.push_back(std::move(ds));
  return 0;
}

}  // namespace

std::string h5_filter_name(int id) {
  switch (id) {
    case 1: return "deflate";
    case 2: return "shuffle";
    case 3: return "fletcher32";
    case 4: return "szip";
    case 5: return "nbit";
    case 6: return "scaleoffset";
    case 307: return "bzip2";
    case 32000: return "lzf";
    case 32001: return "blosc";
    case 32004: return "lz4";
    case 32008: return "bitshuffle";
    case 32015: return "zstd";
    case 32026: return "blosc2";
    default: return "filter " + std::to_string(id);
  }
}

Result<std::string> load_hdf5(const std::string& lib_path) {
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  return load_once(lib_path);
}

Result<H5FileLayout> read_h5_layout(const std::string& file) {
  Hdf5Api& a = api();
  if (a.handle == nullptr) return make_error(ErrorKind::internal, "HDF5 library not loaded");
  H5FileLayout out;
  out.file = file;
  out.library = a.soname + " (HDF5 " + std::to_string(a.major) + "." + std::to_string(a.minor) + "." +
                std::to_string(a.release) + ")";
  // HDF5 opens by name and would block on a FIFO: check the file here and hand HDF5 this very
  // descriptor through /proc/self/fd, so it cannot be swapped for a FIFO in between.
  auto fd = open_user_file(file);
  if (!fd) return fd.error();
  // A thread-safe libhdf5 (Debian's) keeps the error-printing switch per thread: turned off here
  // too, for the thread that reads (`plumb h5` reads under a deadline, on a thread of its own).
  a.eset_auto2(kDefault, nullptr, nullptr);
  std::string by_fd = "/proc/self/fd/" + std::to_string(*fd);
  hid_t f = a.fopen(by_fd.c_str(), kReadOnly, kDefault);
  ::close(*fd);
  // The errors HDF5 recorded on this thread's stack (a failed open, the objects the walk found
  // not to be datasets) are cleared before it ends: a thread-safe libhdf5 frees a thread's stack
  // but not the records left in it.
  if (f < 0) {
    a.eclear2(kDefault);
    return make_error(ErrorKind::invalid, file + ": not an HDF5 file or unreadable");
  }
  Walk w{&out};
  herr_t rc = a.lvisit(f, kIndexName, kIterNative, visit, &w);
  a.fclose(f);
  a.eclear2(kDefault);
  if (rc < 0) return make_error(ErrorKind::invalid, file + ": could not walk the file's links");
  return out;
}

std::string filters_text(const std::vector<H5Filter>& fs) {
  if (fs.empty()) return "none";
  std::string s;
  for (const auto& f : fs) {
    s += (s.empty() ? "" : " + ") + f.name;
    if (!f.options.empty()) {
      s += "(";
      for (std::size_t i = 0; i < f.options.size(); ++i) s += (i ? "," : "") + std::to_string(f.options[i]);
      s += ")";
    }
  }
  return s;
}

std::string h5_dims_text(const std::vector<std::uint64_t>& d) {
  std::string s = "(";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + ")";
}

std::vector<H5Difference> compare_h5_layouts(const H5FileLayout& a, const H5FileLayout& b) {
  std::vector<H5Difference> out;
  std::map<std::string, const H5Dataset*> ma, mb;
  for (const auto& d : a.datasets) ma[d.path] = &d;
  for (const auto& d : b.datasets) mb[d.path] = &d;
  std::set<std::string> names;
  for (const auto& [k, v] : ma) names.insert(k);
  for (const auto& [k, v] : mb) names.insert(k);
  for (const auto& n : names) {
    auto ia = ma.find(n), ib = mb.find(n);
    if (ia == ma.end() || ib == mb.end()) {
      out.push_back({n, "present", ia != ma.end() ? "yes" : "no", ib != mb.end() ? "yes" : "no"});
      continue;
    }
    const H5Dataset& x = *ia->second;
    const H5Dataset& y = *ib->second;
    if (x.dtype != y.dtype) out.push_back({n, "dtype", x.dtype, y.dtype});
    if (x.shape != y.shape) out.push_back({n, "shape", h5_dims_text(x.shape), h5_dims_text(y.shape)});
    if (x.layout != y.layout || x.chunks != y.chunks) {
      out.push_back({n, "layout", x.layout + " " + h5_dims_text(x.chunks), y.layout + " " + h5_dims_text(y.chunks)});
    }
    if (filters_text(x.filters) != filters_text(y.filters)) {
      out.push_back({n, "filters", filters_text(x.filters), filters_text(y.filters)});
    }
  }
  return out;
}

}  // namespace plumb
