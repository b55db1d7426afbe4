// Fuzzes reading `plumb watch --record` files (JSON lines and CSV) and GPU scripts.
#include <cstddef>
#include <cstdint>
#include <string>

#include "collect/gpu_sampler.h"
#include "analyze/watch_recording.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string s(reinterpret_cast<const char*>(data), size);
  (void)plumb::watch::looks_like_recording(s);
  (void)plumb::watch::facts_from_recording(s, "fuzz");
  (void)plumb::watch::parse_gpu_script(s, "fuzz");
  return 0;
}
