// Fuzzes the `scontrol show node` parser and the ownership decision on what it returns.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/slurm_health.h"
#include "collect/slurm_node.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto nodes = plumb::parse_scontrol_nodes(text);
  if (nodes) {
    for (const auto& n : *nodes) {
      (void)plumb::decide_slurm_action(n, "");
      (void)plumb::decide_slurm_action(n, "plumb: l3.x: y");
    }
  }
  (void)plumb::parse_scontrol_node(text, "plumbnode");
  return 0;
}
