// Fuzzes the /proc/net/dev parser of plumb watch.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/proc_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)plumb::watch::parse_net_dev(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
