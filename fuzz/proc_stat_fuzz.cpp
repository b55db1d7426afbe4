// Fuzzes the /proc/stat parser of plumb watch (meminfo, pressure: meminfo_fuzz, pressure_fuzz).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/proc_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view s(reinterpret_cast<const char*>(data), size);
  auto st = plumb::watch::parse_proc_stat(s);
  if (st.all) (void)st.all->busy();
  return 0;
}
