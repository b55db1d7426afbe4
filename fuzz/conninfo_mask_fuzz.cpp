// Fuzzes the conninfo password mask (a --store value is a URI or keyword/value string): no input
// may crash it, and a password given after "user:" in a URI never survives it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "store/fleet_store.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)plumb::mask_conninfo(text);
  if (text.find_first_of(":@/?#") == std::string::npos && !text.empty()) {
    std::string uri = "postgresql://u:" + text + "@h/db";
    if (plumb::mask_conninfo(uri) != "postgresql://u:***@h/db") std::abort();
  }
  return 0;
}
