// Fuzzes the sysfs GID value and GID type parsers.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/ib_gids.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto gid = plumb::parse_gid(text)) {
    (void)plumb::is_zero_gid(*gid);
    (void)plumb::gid_ipv4(*gid);
  }
  (void)plumb::gid_ipv4(text);
  (void)plumb::parse_gid_type(text);
  return 0;
}
