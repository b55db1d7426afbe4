// Fuzzes reading a node's saved snapshot for `plumb fleet report` (consistency values, findings,
// bench metrics, line rate), then the fleet built from it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analyze/fleet.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string s(reinterpret_cast<const char*>(data), size);
  auto n = plumb::read_node_snapshot(s, "fuzz", nullptr);
  if (n) {
    std::vector<plumb::NodeSnapshot> nodes{*n, *n};
    plumb::unique_hosts(nodes);
    (void)plumb::build_fleet(nodes);
    (void)plumb::group_findings(nodes);
  }
  return 0;
}
