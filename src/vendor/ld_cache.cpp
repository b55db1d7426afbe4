// glibc ld.so.cache reader (layout from glibc elf/cache.c / sysdeps/generic/dl-cache.h).
#include "vendor/ld_cache.h"

#include <cstdint>
#include <cstring>

namespace plumb {

namespace {

constexpr std::string_view kOldMagic = "ld.so-1.7.0";             // struct cache_file
constexpr std::string_view kNewMagic = "glibc-ld.so.cache1.1";    // struct cache_file_new (magic + version)
constexpr std::size_t kOldHeader = 16;  // char magic[11] (+pad), uint32 nlibs
constexpr std::size_t kOldEntry = 12;   // int32 flags, uint32 key, uint32 value
constexpr std::size_t kNewHeader = 48;  // magic[17]+version[3], nlibs, len_strings, flags+pad, ext offset, unused[3]
constexpr std::size_t kNewEntry = 24;   // int32 flags, uint32 key, uint32 value, uint32 osversion, uint64 hwcap

std::uint32_t u32(std::string_view d, std::size_t off) {
  std::uint32_t v = 0;
  std::memcpy(&v, d.data() + off, sizeof v);
  return v;
}

// A NUL-terminated string at `off` of the new section, or empty when out of range.
std::string_view str_at(std::string_view sec, std::uint32_t off) {
  if (off >= sec.size()) return {};
  auto end = sec.find('\0', off);
  if (end == std::string_view::npos) return {};
  return sec.substr(off, end - off);
}

}  // namespace

std::vector<LdCacheEntry> parse_ld_so_cache(std::string_view d) {
  std::vector<LdCacheEntry> out;
  std::size_t start = 0;
  if (d.substr(0, kOldMagic.size()) == kOldMagic) {
    if (d.size() < kOldHeader) return out;
    std::uint64_t n = u32(d, 12);
    std::uint64_t end = kOldHeader + n * kOldEntry;
    // The new section follows, aligned to 8 bytes (ALIGN_CACHE).
    start = static_cast<std::size_t>((end + 7) & ~std::uint64_t{7});
    if (start >= d.size()) return out;
  }
  std::string_view sec = d.substr(start);
  if (sec.size() < kNewHeader || sec.substr(0, kNewMagic.size()) != kNewMagic) return out;
  std::uint64_t n = u32(sec, 20);
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t off = kNewHeader + i * kNewEntry;
    if (off + kNewEntry > sec.size()) break;
    // String offsets are relative to the start of the new section.
    LdCacheEntry e{str_at(sec, u32(sec, static_cast<std::size_t>(off) + 4)),
                   str_at(sec, u32(sec, static_cast<std::size_t>(off) + 8))};
    if (!e.name.empty() && !e.path.empty()) out.push_back(e);
  }
  return out;
}

}  // namespace plumb
