// /etc/ld.so.cache (glibc's binary cache that `ldconfig -p` prints), parsed without running ldconfig.
#pragma once

#include <string_view>
#include <vector>

namespace plumb {

// Views into the cache's bytes: valid while they are. A cache holds about a thousand entries of
// which a reader wants a few, and copying every name and path was most of its parse.
struct LdCacheEntry {
  std::string_view name;  // "libcudart.so.13"
  std::string_view path;  // "/usr/local/cuda-13.0/lib/libcudart.so.13"
  bool operator==(const LdCacheEntry&) const = default;
};

// Parses the new format ("glibc-ld.so.cache1.1", glibc >= 2.32 writes only this) and the old
// "ld.so-1.7.0" format followed by the new one. Entries keep the cache's order, which is the order
// the loader searches. Garbage or truncation yields the entries read so far.
std::vector<LdCacheEntry> parse_ld_so_cache(std::string_view data);

}  // namespace plumb
