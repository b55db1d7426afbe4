// Fuzzes the streaming trace reader on any bytes: Kineto objects, gzip, garbage. Tiny chunks and
// batches push every event across buffer boundaries.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze/trace/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  plumb::trace::TraceOptions o;
  o.limits.chunk = 1 + size % 61;
  o.limits.batch = 1 + size % 97;
  o.limits.max_event = 1 << 16;
  (void)plumb::trace::analyze_trace_bytes(in, "fuzz.json", o);
  (void)plumb::trace::analyze_trace_bytes(in, "fuzz.json");
  return 0;
}
