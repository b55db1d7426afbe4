// Fuzzes the /proc/stat, /proc/meminfo and /proc/pressure parsers of plumb watch.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "watch/proc_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view s(reinterpret_cast<const char*>(data), size);
  auto st = plumb::watch::parse_proc_stat(s);
  if (st.all) (void)st.all->busy();
  (void)plumb::watch::parse_meminfo(s);
  (void)plumb::watch::parse_psi(s);
  return 0;
}
