// Fuzzes the PCI configuration-space walker (capability and extended capability lists, ACS).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/pci_acs.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto info = plumb::parse_pci_config(bytes);
  if (info.acs_ctrl) (void)plumb::acs_flags_text(*info.acs_ctrl);
  return 0;
}
