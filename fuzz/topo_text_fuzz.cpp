// Fuzzes the `nvidia-smi topo -m` text parser and the close-group search on what it returns.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze/topology.h"
#include "report/topo_render.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto t = plumb::parse_topo_text(std::string_view(reinterpret_cast<const char*>(data), size));
  if (t && t->gpus.size() <= 16) {
    plumb::close_groups(*t, 2);
    plumb::render_topo_matrix(*t, plumb::TopoWords{});
  }
  return 0;
}
