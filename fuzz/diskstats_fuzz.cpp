// Fuzzes the /proc/diskstats parser and the whole-disk selection of plumb watch.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/proc_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto d = plumb::watch::parse_diskstats(std::string_view(reinterpret_cast<const char*>(data), size));
  std::vector<std::string> names;
  for (const auto& x : d) names.push_back(x.name);
  (void)plumb::watch::whole_disks(names);
  return 0;
}
