// Fuzzes the NCCL topology XML reader (pugixml underneath).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/nccl_topo_xml.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)plumb::parse_nccl_topo_xml(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
