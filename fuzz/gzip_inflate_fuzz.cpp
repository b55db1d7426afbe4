// Fuzzes the gzip readers of traces and logs (src/analyze/trace/source.cpp) differentially: the
// input inflated by ISA-L and by zlib must both fail or both give the same bytes. The first byte
// picks the output step, so decoded bytes are handed over in pieces of 1 to 256 bytes or 64 KiB.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "analyze/trace/source.h"

namespace {

bool inflate(std::string_view gz, plumb::trace::Inflater with, std::size_t step, std::string& out) {
  plumb::trace::gzip_inflater = with;
  auto src = plumb::trace::memory_source(gz, "fuzz.json.gz");
  plumb::trace::gzip_inflater = plumb::trace::Inflater::isal;
  std::string buf(step, '\0');
  while (out.size() < (std::size_t{64} << 20)) {  // a small input can inflate to gigabytes
    auto n = src->read(buf.data(), buf.size());
    if (!n) return false;
    if (*n == 0) return true;
    out.append(buf.data(), *n);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t step = data[0] == 0 ? std::size_t{1} << 16 : data[0];
  // Every input is read as gzip: the magic bytes are put in front unless the input has them.
  std::string gz(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (gz.size() < 2 || gz[0] != '\x1f' || gz[1] != '\x8b') gz.insert(0, "\x1f\x8b");
  std::string by_zlib, by_isal;
  const bool z = inflate(gz, plumb::trace::Inflater::zlib, step, by_zlib);
  const bool i = inflate(gz, plumb::trace::Inflater::isal, step, by_isal);
  if (z != i) std::abort();
  if (z && by_zlib != by_isal) std::abort();
  return 0;
}
