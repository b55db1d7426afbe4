// Differential fuzzing of the trace reader: plumb's own event scanner against simdjson On-Demand,
// a trace read in parts on several threads (threads done early taking over the rest of other parts)
// against one thread, the same bytes gzip-compressed and read in parts cut as they are inflated
// against one thread, and the splitter's vector widths against each other. Any input must give the
// same result, or the same one-line error, all ways.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "analyze/trace/reader.h"

namespace {

bool same(const plumb::Result<plumb::TraceRank>& a, const plumb::Result<plumb::TraceRank>& b) {
  if (a.ok() != b.ok()) return false;
  if (!a.ok()) return a.error().message == b.error().message;
  plumb::TraceRank x = *a;
  x.parse_ms = b->parse_ms;
  return x == *b;
}

// `in` as one gzip member (zlib, default level).
std::string gzip(std::string_view in) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&zs, static_cast<uLong>(in.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  plumb::trace::TraceOptions one;
  one.limits.chunk = 1 + size % 61;
  one.limits.batch = 1 + size % 97;
  one.limits.max_event = 1 << 16;
  one.limits.simd = static_cast<int>(size % 3);  // the splitter's vector width (as far as the CPU has it)
  auto base = plumb::trace::analyze_trace_bytes(in, "fuzz.json", one);
  plumb::trace::TraceOptions slow = one;
  slow.fast_scan = false;
  if (!same(base, plumb::trace::analyze_trace_bytes(in, "fuzz.json", slow))) std::abort();
  plumb::trace::TraceOptions parts = one;
  parts.threads = 2 + static_cast<int>(size % 5);
  parts.min_part = 1 + size / 7;
  parts.limits.simd = static_cast<int>((size + 1) % 3);
  parts.min_steal = 1 + size / 11;  // threads done early take over the rest of other parts
  parts.stream_part = 1 + size / 5;  // where the input is gzip: parts cut as it is inflated
  if (!same(base, plumb::trace::analyze_trace_bytes(in, "fuzz.json", parts))) std::abort();
  const std::string gz = gzip(in);
  if (!same(plumb::trace::analyze_trace_bytes(gz, "fuzz.json", one), plumb::trace::analyze_trace_bytes(gz, "fuzz.json", parts))) {
    std::abort();
  }
  return 0;
}
