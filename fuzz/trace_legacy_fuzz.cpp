// Fuzzes the reader on the legacy autograd-profiler format: the input becomes the events of a
// top-level array, as CPU-only PyTorch builds write it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analyze/trace/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text = "[" + std::string(reinterpret_cast<const char*>(data), size) + "]";
  plumb::trace::TraceOptions o;
  o.limits.chunk = 1 + size % 53;
  o.limits.batch = 1 + size % 89;
  o.limits.max_event = 1 << 16;
  (void)plumb::trace::analyze_trace_bytes(text, "fuzz.json", o);
  return 0;
}
