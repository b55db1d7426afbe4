// Fuzzes the mount-table parsers (mountinfo, /proc/mounts), mount lookup, /dev/shm sizing and the
// IO scheduler list.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/storage.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto mi = plumb::parse_mountinfo(text);
  auto m = plumb::parse_mounts(text);
  plumb::find_mount_for(mi, "/data/x");
  plumb::find_mount_for(m, text.substr(0, 64));
  plumb::shm_from_mounts(m, "/proc/mounts");
  plumb::shm_from_mounts(mi, "/proc/self/mountinfo");
  (void)plumb::parse_scheduler(text);
  plumb::normalize_path(text);
  plumb::unescape_mount_field(text);
  return 0;
}
