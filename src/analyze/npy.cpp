// NumPy .npy / .npz reader. Formats: numpy's "NEP 1 — A simple file format for NumPy arrays"
// (numpy/lib/format.py: magic "\x93NUMPY", version, little-endian header length of 2 bytes in 1.0
// and 4 bytes in 2.0/3.0, then a Python dict literal with 'descr', 'fortran_order', 'shape') and
// PKWARE's APPNOTE.TXT for the zip container (numpy.savez writes members with zip64 extra fields).
#include "analyze/npy.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/host_root.h"

namespace plumb {

namespace {

Error bad(const std::string& what) { return make_error(ErrorKind::invalid, what); }

std::uint32_t le16(std::string_view s, std::size_t at) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(s[at])) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 1])) << 8);
}
std::uint32_t le32(std::string_view s, std::size_t at) { return le16(s, at) | (le16(s, at + 2) << 16); }
std::uint64_t le64(std::string_view s, std::size_t at) {
  return static_cast<std::uint64_t>(le32(s, at)) | (static_cast<std::uint64_t>(le32(s, at + 4)) << 32);
}

// A cursor over the header's Python dict literal ({'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }).
class DictReader {
 public:
  explicit DictReader(std::string_view s) : s_(s) {}
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    skip_ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  [[nodiscard]] bool peek(char c) {
    skip_ws();
    return i_ < s_.size() && s_[i_] == c;
  }
  bool string(std::string& out) {
    skip_ws();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) return false;
    char q = s_[i_++];
    auto end = s_.find(q, i_);
    if (end == std::string_view::npos || end - i_ > 256) return false;
    out.assign(s_.substr(i_, end - i_));
    i_ = end + 1;
    return true;
  }
  bool word(std::string& out) {
    skip_ws();
    std::size_t start = i_;
    while (i_ < s_.size() && std::isalnum(static_cast<unsigned char>(s_[i_])) != 0 && i_ - start < 32) ++i_;
    out.assign(s_.substr(start, i_ - start));
    return !out.empty();
  }
  bool uint(std::uint64_t& out) {
    skip_ws();
    std::size_t start = i_;
    out = 0;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      if (out > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return false;
      out = out * 10 + static_cast<std::uint64_t>(s_[i_] - '0');
      ++i_;
    }
    if (i_ < s_.size() && s_[i_] == 'L') ++i_;  // Python 2 longs in files from numpy < 1.17
    return i_ > start;
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

struct Header {
  std::string descr;
  bool fortran = false;
  std::vector<std::uint64_t> shape;
};

Result<Header> parse_header(std::string_view text, const NpyLimits& limits) {
  DictReader r(text);
  Header h;
  bool have_descr = false, have_order = false, have_shape = false;
  if (!r.eat('{')) return bad("npy header is not a dict literal");
  while (!r.eat('}')) {
    std::string key;
    if (!r.string(key) || !r.eat(':')) return bad("npy header: expected 'key': value");
    if (key == "descr") {
      if (r.peek('[')) return bad("unsupported dtype: structured (record) arrays are not compared");
      if (!r.string(h.descr)) return bad("npy header: 'descr' is not a string");
      have_descr = true;
    } else if (key == "fortran_order") {
      std::string w;
      if (!r.word(w) || (w != "True" && w != "False")) return bad("npy header: 'fortran_order' is not True/False");
      h.fortran = w == "True";
      have_order = true;
    } else if (key == "shape") {
      if (!r.eat('(')) return bad("npy header: 'shape' is not a tuple");
      while (!r.eat(')')) {
        std::uint64_t d = 0;
        if (!r.uint(d)) return bad("npy header: 'shape' holds something other than non-negative integers");
        if (h.shape.size() >= limits.max_dims) return bad("npy header: more than " + std::to_string(limits.max_dims) + " dimensions");
        h.shape.push_back(d);
        if (!r.eat(',') && !r.peek(')')) return bad("npy header: 'shape' tuple is malformed");
      }
      have_shape = true;
    } else {
      return bad("npy header: unknown key '" + key + "'");
    }
    if (!r.eat(',') && !r.peek('}')) return bad("npy header: expected ',' or '}'");
  }
  if (!have_descr || !have_order || !have_shape) return bad("npy header lacks 'descr', 'fortran_order' or 'shape'");
  return h;
}

// "<f4" -> kind, size, byte order. Non-numeric kinds (object, strings, datetimes, void) are refused.
Result<NpyArray> dtype_of(const std::string& descr) {
  NpyArray a;
  a.descr = descr;
  if (descr.size() < 3) return bad("unsupported dtype '" + descr + "'");
  char order = descr[0];
  char kind = descr[1];
  std::string digits = descr.substr(2);
  if (order != '<' && order != '>' && order != '|' && order != '=') return bad("unsupported dtype '" + descr + "'");
  if (digits.empty() || digits.size() > 2 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return bad("unsupported dtype '" + descr + "'");
  }
  a.itemsize = std::stoi(digits);
  bool little_host = std::endian::native == std::endian::little;
  a.swap = a.itemsize > 1 && ((order == '<' && !little_host) || (order == '>' && little_host));
  auto sizes_ok = [&](std::initializer_list<int> ok) { return std::find(ok.begin(), ok.end(), a.itemsize) != ok.end(); };
  switch (kind) {
    case 'b':
      a.kind = NpyKind::boolean;
      if (a.itemsize != 1) return bad("unsupported dtype '" + descr + "'");
      break;
    case 'i':
      a.kind = NpyKind::signed_int;
      if (!sizes_ok({1, 2, 4, 8})) return bad("unsupported dtype '" + descr + "'");
      break;
    case 'u':
      a.kind = NpyKind::unsigned_int;
      if (!sizes_ok({1, 2, 4, 8})) return bad("unsupported dtype '" + descr + "'");
      break;
    case 'f':
      a.kind = NpyKind::floating;
      if (!sizes_ok({2, 4, 8})) return bad("unsupported dtype '" + descr + "' (long double is not portable)");
      break;
    case 'c':
      a.kind = NpyKind::complex;
      if (!sizes_ok({8, 16})) return bad("unsupported dtype '" + descr + "' (complex long double is not portable)");
      break;
    default:
      return bad("unsupported dtype '" + descr + "': only bool, integer, float and complex arrays are compared");
  }
  return a;
}

// IEEE 754 binary16 -> double.
double half_to_double(std::uint16_t h) {
  int sign = (h >> 15) & 1;
  int exp = (h >> 10) & 0x1f;
  int frac = h & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(frac, -24);
  } else if (exp == 31) {
    v = frac == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else {
    v = std::ldexp(frac + 1024, exp - 25);
  }
  return sign ? -v : v;
}

template <class U>
U load_scalar(const char* p, bool swap) {
  U u;
  std::memcpy(&u, p, sizeof(U));
  if (swap) {
    unsigned char b[sizeof(U)];
    std::memcpy(b, &u, sizeof(U));
    std::reverse(b, b + sizeof(U));
    std::memcpy(&u, b, sizeof(U));
  }
  return u;
}

double element_value(NpyKind kind, int size, const char* p, bool swap) {
  switch (kind) {
    case NpyKind::boolean:
      return *p != 0 ? 1.0 : 0.0;
    case NpyKind::signed_int:
      switch (size) {
        case 1: return static_cast<double>(static_cast<std::int8_t>(*p));
        case 2: return static_cast<double>(static_cast<std::int16_t>(load_scalar<std::uint16_t>(p, swap)));
        case 4: return static_cast<double>(static_cast<std::int32_t>(load_scalar<std::uint32_t>(p, swap)));
        default: return static_cast<double>(static_cast<std::int64_t>(load_scalar<std::uint64_t>(p, swap)));
      }
    case NpyKind::unsigned_int:
      switch (size) {
        case 1: return static_cast<double>(static_cast<std::uint8_t>(*p));
        case 2: return static_cast<double>(load_scalar<std::uint16_t>(p, swap));
        case 4: return static_cast<double>(load_scalar<std::uint32_t>(p, swap));
        default: return static_cast<double>(load_scalar<std::uint64_t>(p, swap));
      }
    case NpyKind::floating:
    case NpyKind::complex:
      switch (size) {
        case 2: return half_to_double(load_scalar<std::uint16_t>(p, swap));
        case 4: return static_cast<double>(std::bit_cast<float>(load_scalar<std::uint32_t>(p, swap)));
        default: return std::bit_cast<double>(load_scalar<std::uint64_t>(p, swap));
      }
  }
  return 0;
}

constexpr char kMagic[] = "\x93NUMPY";

}  // namespace

void NpyArray::value(std::uint64_t i, double& re, double& im) const {
  const char* p = data.data() + i * static_cast<std::uint64_t>(itemsize);
  if (kind == NpyKind::complex) {
    int half = itemsize / 2;
    re = element_value(kind, half, p, swap);
    im = element_value(kind, half, p + half, swap);
  } else {
    re = element_value(kind, itemsize, p, swap);
    im = 0;
  }
}

Result<NpyArray> parse_npy(std::string_view bytes, const NpyLimits& limits) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != std::string_view(kMagic, 6)) return bad("not a .npy file (no \\x93NUMPY magic)");
  int major = static_cast<unsigned char>(bytes[6]);
  int minor = static_cast<unsigned char>(bytes[7]);
  std::size_t header_len = 0, header_at = 0;
  if (major == 1) {
    header_len = le16(bytes, 8);
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return bad(".npy file is truncated in its header");
    header_len = le32(bytes, 8);
    header_at = 12;
  } else {
    return bad("unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
  }
  if (header_len > limits.max_header) return bad(".npy header of " + std::to_string(header_len) + " bytes exceeds the limit of " + std::to_string(limits.max_header));
  if (bytes.size() - header_at < header_len) return bad(".npy file is truncated in its header");
  auto h = parse_header(bytes.substr(header_at, header_len), limits);
  if (!h) return h.error();
  auto a = dtype_of(h->descr);
  if (!a) return a.error();
  NpyArray out = std::move(a.value());
  out.fortran = h->fortran;
  out.shape = h->shape;
  std::uint64_t count = 1;
  for (auto d : out.shape) {
    if (d != 0 && count > std::numeric_limits<std::uint64_t>::max() / d) return bad(".npy shape " + npy_shape_text(out.shape) + " overflows");
    count *= d;
  }
  std::uint64_t isz = static_cast<std::uint64_t>(out.itemsize);
  if (count > limits.max_data_bytes / isz) {
    return bad(".npy array " + npy_shape_text(out.shape) + " of " + out.descr + " exceeds the limit of " + std::to_string(limits.max_data_bytes >> 20) + " MiB");
  }
  out.count = count;
  std::size_t data_at = header_at + header_len;
  std::uint64_t need = count * isz;
  if (bytes.size() - data_at < need) {
    return bad(".npy data is truncated: " + std::to_string(need) + " bytes expected, " + std::to_string(bytes.size() - data_at) + " present");
  }
  out.data.assign(bytes.substr(data_at, need));
  return out;
}

namespace {

struct ZipEntry {
  std::string name;
  int method = 0;
  std::uint32_t crc = 0;
  std::uint64_t csize = 0, usize = 0, offset = 0;
};

// Reads the zip64 extended information extra field (id 0x0001): each 0xFFFFFFFF field of the
// fixed record is replaced, in the order usize, csize, offset.
void apply_zip64(std::string_view extra, ZipEntry& e, bool u32, bool c32, bool o32) {
  std::size_t i = 0;
  while (i + 4 <= extra.size()) {
    std::uint32_t id = le16(extra, i), len = le16(extra, i + 2);
    if (i + 4 + len > extra.size()) return;
    if (id == 1) {
      std::size_t j = i + 4, end = i + 4 + len;
      if (u32 && j + 8 <= end) { e.usize = le64(extra, j); j += 8; }
      if (c32 && j + 8 <= end) { e.csize = le64(extra, j); j += 8; }
      if (o32 && j + 8 <= end) e.offset = le64(extra, j);
      return;
    }
    i += 4 + len;
  }
}

Result<std::string> inflate_raw(std::string_view in, std::uint64_t expect) {
  std::string out;
  out.resize(expect);
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return bad("zlib inflateInit2 failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(std::min<std::size_t>(in.size(), std::numeric_limits<uInt>::max()));
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(expect);
  int rc = inflate(&zs, Z_FINISH);
  std::uint64_t produced = zs.total_out;
  inflateEnd(&zs);
  // Output is capped at the declared size: a bomb stops there and fails the size check.
  if (rc != Z_STREAM_END || produced != expect) return bad("deflate data is corrupt or not of the declared size");
  return out;
}

}  // namespace

Result<std::vector<NpzMember>> parse_npz(std::string_view bytes, const NpyLimits& limits) {
  // End of central directory: 22 bytes plus a comment of at most 65535 bytes, found from the end.
  if (bytes.size() < 22) return bad("not a zip archive (too short)");
  std::size_t eocd = std::string_view::npos;
  std::size_t lowest = bytes.size() > 22 + 65535 ? bytes.size() - 22 - 65535 : 0;
  for (std::size_t i = bytes.size() - 22 + 1; i-- > lowest;) {
    if (le32(bytes, i) == 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd == std::string_view::npos) return bad("not a zip archive (no end of central directory)");
  std::uint64_t entries = le16(bytes, eocd + 10);
  std::uint64_t cd_size = le32(bytes, eocd + 12);
  std::uint64_t cd_off = le32(bytes, eocd + 16);
  if (entries == 0xFFFF || cd_off == 0xFFFFFFFF || cd_size == 0xFFFFFFFF) {
    // Zip64 end of central directory locator (20 bytes before the EOCD) -> zip64 EOCD record.
    if (eocd < 20 || le32(bytes, eocd - 20) != 0x07064b50) return bad("zip64 archive without its locator");
    std::uint64_t z = le64(bytes, eocd - 20 + 8);
    if (z > bytes.size() || bytes.size() - z < 56 || le32(bytes, z) != 0x06064b50) return bad("zip64 end of central directory is out of the file");
    entries = le64(bytes, z + 32);
    cd_size = le64(bytes, z + 40);
    cd_off = le64(bytes, z + 48);
  }
  if (entries > limits.max_entries) return bad("zip archive has " + std::to_string(entries) + " members, more than the limit of " + std::to_string(limits.max_entries));
  if (cd_off > bytes.size() || cd_size > bytes.size() - cd_off) return bad("zip central directory lies outside the file");
  std::vector<ZipEntry> list;
  std::size_t p = cd_off;
  std::size_t cd_end = cd_off + cd_size;
  for (std::uint64_t n = 0; n < entries; ++n) {
    if (p + 46 > cd_end || le32(bytes, p) != 0x02014b50) return bad("zip central directory is corrupt");
    ZipEntry e;
    std::uint32_t flags = le16(bytes, p + 8);
    e.method = static_cast<int>(le16(bytes, p + 10));
    e.crc = le32(bytes, p + 16);
    e.csize = le32(bytes, p + 20);
    e.usize = le32(bytes, p + 24);
    std::size_t nlen = le16(bytes, p + 28), xlen = le16(bytes, p + 30), clen = le16(bytes, p + 32);
    e.offset = le32(bytes, p + 42);
    if (p + 46 + nlen + xlen + clen > cd_end) return bad("zip central directory is corrupt");
    e.name.assign(bytes.substr(p + 46, nlen));
    apply_zip64(bytes.substr(p + 46 + nlen, xlen), e, e.usize == 0xFFFFFFFF, e.csize == 0xFFFFFFFF, e.offset == 0xFFFFFFFF);
    if ((flags & 1) != 0) return bad("zip member '" + e.name + "' is encrypted");
    list.push_back(std::move(e));
    p += 46 + nlen + xlen + clen;
  }
  std::vector<NpzMember> out;
  std::uint64_t total = 0;
  for (const auto& e : list) {
    if (!e.name.empty() && e.name.back() == '/') continue;  // a directory entry
    NpzMember m;
    m.name = e.name.size() > 4 && e.name.ends_with(".npy") ? e.name.substr(0, e.name.size() - 4) : e.name;
    if (e.usize > limits.max_data_bytes + limits.max_header + 16 || total + e.usize > limits.max_total_bytes) {
      return bad("zip member '" + e.name + "' would decompress to " + std::to_string(e.usize) + " bytes, over the limit");
    }
    total += e.usize;
    if (e.offset > bytes.size() || bytes.size() - e.offset < 30 || le32(bytes, e.offset) != 0x04034b50) {
      return bad("zip member '" + e.name + "' has no local header at its offset");
    }
    std::size_t data_at = e.offset + 30 + le16(bytes, e.offset + 26) + le16(bytes, e.offset + 28);
    if (data_at > bytes.size() || e.csize > bytes.size() - data_at) return bad("zip member '" + e.name + "' is truncated");
    std::string_view raw = bytes.substr(data_at, e.csize);
    std::string plain;
    if (e.method == 0) {
      if (e.csize != e.usize) return bad("zip member '" + e.name + "' is stored with different sizes");
      plain.assign(raw);
    } else if (e.method == 8) {
      auto inflated = inflate_raw(raw, e.usize);
      if (!inflated) return bad("zip member '" + e.name + "': " + inflated.error().message);
      plain = std::move(inflated.value());
    } else {
      return bad("zip member '" + e.name + "' uses compression method " + std::to_string(e.method) + " (only stored and deflate)");
    }
    auto crc = crc32(0L, reinterpret_cast<const Bytef*>(plain.data()), static_cast<uInt>(plain.size()));
    if (crc != e.crc) return bad("zip member '" + e.name + "' fails its CRC-32 check");
    m.array = parse_npy(plain, limits);
    out.push_back(std::move(m));
  }
  return out;
}

Result<std::vector<NpzMember>> read_array_file(const std::string& path, const NpyLimits& limits) {
  auto bytes = read_user_file(path, limits.max_total_bytes);
  if (!bytes) return bytes.error();
  std::string_view b = *bytes;
  if (b.size() >= 4 && le32(b, 0) == 0x04034b50) {
    auto members = parse_npz(b, limits);
    if (!members) return make_error(members.error().kind, path + ": " + members.error().message);
    return members;
  }
  if (b.size() >= 4 && le32(b, 0) == 0x06054b50) return std::vector<NpzMember>{};  // an empty .npz
  auto a = parse_npy(b, limits);
  if (!a) return make_error(a.error().kind, path + ": " + a.error().message);
  auto slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  std::vector<NpzMember> out;
  out.push_back(NpzMember{name, std::move(a.value())});
  return out;
}

std::string npy_image(const std::string& descr, const std::vector<std::uint64_t>& shape, std::string_view data) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + npy_shape_text(shape) + ", }";
  // numpy pads the header with spaces and a newline so the data starts on a 64-byte boundary.
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  return out + header + std::string(data);
}

std::string npy_shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace plumb
