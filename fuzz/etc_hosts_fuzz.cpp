// Fuzzes the /etc/hosts and nsswitch.conf parsers and the loopback test of their addresses.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/name_resolution.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto hosts = plumb::parse_etc_hosts(text);
  for (const auto& e : hosts) (void)plumb::is_loopback_address(e.address);
  (void)plumb::hosts_entries_for(hosts, "gpu-node-07");
  (void)plumb::parse_nsswitch_hosts(text);
  (void)plumb::is_loopback_address(text);
  return 0;
}
