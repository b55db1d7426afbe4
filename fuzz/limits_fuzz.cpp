// Fuzzes the /proc/<pid>/limits and status parsers.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/pid_status.h"
#include "collect/process.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)plumb::parse_limits(text);
  (void)plumb::parse_pid_status(text);
  return 0;
}
