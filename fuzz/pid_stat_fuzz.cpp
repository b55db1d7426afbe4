// Fuzzes the /proc/<pid>/stat and /proc/<pid>/status parsers of plumb watch.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/proc_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view s(reinterpret_cast<const char*>(data), size);
  (void)plumb::watch::parse_pid_stat(s);
  (void)plumb::watch::parse_pid_status(s);
  return 0;
}
