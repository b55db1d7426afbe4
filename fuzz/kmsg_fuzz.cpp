// Fuzzes the kernel-log parser (every line format, OOM and Xid extraction).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/kmsg.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  plumb::parse_kernel_log(text);
  plumb::parse_kernel_log_line(text);
  plumb::parse_xid(text);
  plumb::parse_oom_kill(text);
  return 0;
}
