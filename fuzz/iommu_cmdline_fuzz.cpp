// Fuzzes the kernel command-line IOMMU parser and the iommu group type parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/iommu.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)plumb::cmdline_iommu_mode(plumb::parse_iommu_cmdline(text));
  (void)plumb::parse_iommu_group_type(text);
  return 0;
}
