// Fuzzes the TOML config reader (--config FILE): parse errors must come back as Result errors.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/thresholds.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)plumb::parse_config(text, "fuzz.toml");
  return 0;
}
