// zlib's deflate for the trace reader's tests: gzip members and raw deflate streams to read back.
#pragma once

#include <zlib.h>

#include <string>

namespace plumb::test {

// `s` deflated at `level` (0: stored blocks). `window_bits` as zlib takes it: 15 + 16 for a gzip
// member, -15 for raw deflate. `header` sets the gzip header's optional fields; `dictionary` is the
// preset dictionary of a raw stream (its matches may then reach back before the stream's start).
inline std::string deflate_with(const std::string& s, int level, int window_bits, gz_header* header = nullptr,
                                const std::string* dictionary = nullptr) {
  z_stream zs{};
  deflateInit2(&zs, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
  if (header != nullptr) deflateSetHeader(&zs, header);
  if (dictionary != nullptr) {
    deflateSetDictionary(&zs, reinterpret_cast<const Bytef*>(dictionary->data()), static_cast<uInt>(dictionary->size()));
  }
  std::string out(deflateBound(&zs, s.size()) + 256, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  zs.avail_in = static_cast<uInt>(s.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace plumb::test
