// ELF64 section lookup by name; see vendor/elf_strings.h.
#include "vendor/elf_strings.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace plumb {

namespace {

constexpr std::size_t kEhdrSize = 64;    // Elf64_Ehdr
constexpr std::size_t kShdrSize = 64;    // Elf64_Shdr
constexpr std::uint32_t kShtNobits = 8;  // SHT_NOBITS: no bytes in the file (.bss)

template <class T>
T get(std::string_view d, std::size_t off) {
  T v{};
  std::memcpy(&v, d.data() + off, sizeof v);  // callers check off + sizeof(T) <= d.size()
  return v;
}

struct Section {
  std::uint32_t name = 0;
  std::uint32_t type = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

Section section_at(std::string_view table, std::size_t i, std::size_t entsize) {
  std::size_t at = i * entsize;
  return {get<std::uint32_t>(table, at), get<std::uint32_t>(table, at + 4), get<std::uint64_t>(table, at + 0x18),
          get<std::uint64_t>(table, at + 0x20)};
}

}  // namespace

std::string find_elf_section_string(const ElfReadAt& read, std::string_view section, std::string_view prefix,
                                    const std::function<bool(std::string_view)>& accept, const ElfStringLimits& limits) {
  if (prefix.empty() || prefix.size() > limits.max_string) return {};
  auto head = read(0, kEhdrSize);
  if (!head || head->size() != kEhdrSize) return {};
  std::string_view h = *head;
  // e_ident: "\x7f" "ELF", EI_CLASS 2 (ELFCLASS64), EI_DATA 1 (ELFDATA2LSB).
  if (h.substr(0, 4) != std::string_view("\x7f" "ELF", 4) || h[4] != 2 || h[5] != 1) return {};
  const auto shoff = get<std::uint64_t>(h, 0x28);
  const auto shentsize = get<std::uint16_t>(h, 0x3A);
  const auto shnum = get<std::uint16_t>(h, 0x3C);
  const auto shstrndx = get<std::uint16_t>(h, 0x3E);
  // shnum 0 means the count lives in section 0 (more than 65279 sections): not a library's layout.
  if (shnum == 0 || shentsize < kShdrSize || shstrndx >= shnum) return {};
  const std::size_t table_size = static_cast<std::size_t>(shnum) * shentsize;
  if (table_size > limits.max_table) return {};
  auto table = read(shoff, table_size);
  if (!table || table->size() != table_size) return {};
  const Section names = section_at(*table, shstrndx, shentsize);
  if (names.type == kShtNobits || names.size == 0 || names.size > limits.max_table) return {};
  auto name_table = read(names.offset, static_cast<std::size_t>(names.size));
  if (!name_table || name_table->size() != names.size) return {};
  std::string_view nt = *name_table;
  for (std::size_t i = 0; i < shnum; ++i) {
    const Section s = section_at(*table, i, shentsize);
    if (s.name >= nt.size()) continue;
    std::string_view n = nt.substr(s.name);
    n = n.substr(0, n.find('\0'));
    if (n != section) continue;
    if (s.type == kShtNobits || s.size == 0 || s.size > limits.max_section) return {};
    // In windows of 64 KiB (NCCL's .rodata is 217 KB): one buffer's pages, reused, rather than the
    // whole section's fresh ones. Each window reaches max_string past its end, so a string that
    // starts inside it is whole; a match is taken from the window it starts in.
    constexpr std::uint64_t kWindow = 64u << 10;
    for (std::uint64_t pos = 0; pos < s.size; pos += kWindow) {
      const std::uint64_t want = std::min<std::uint64_t>(s.size - pos, kWindow + limits.max_string);
      if (s.offset > UINT64_MAX - pos) return {};
      auto bytes = read(s.offset + pos, static_cast<std::size_t>(want));
      if (!bytes || bytes->size() != want) return {};
      std::string_view b = *bytes;
      const std::size_t starts = static_cast<std::size_t>(std::min<std::uint64_t>(want, kWindow));
      for (std::size_t at = b.find(prefix); at != std::string_view::npos && at < starts; at = b.find(prefix, at + 1)) {
        std::string_view str = b.substr(at, limits.max_string);
        str = str.substr(0, str.find('\0'));
        if (accept(str)) return std::string(str);
      }
    }
    return {};
  }
  return {};
}

namespace {

// Digits at the front of `s` as a number below 100000; consumes them. Nullopt when none or too many.
std::optional<int> take_number(std::string_view& s) {
  std::size_t n = 0;
  int v = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') {
    if (n == 5) return std::nullopt;
    v = v * 10 + (s[n] - '0');
    ++n;
  }
  if (n == 0) return std::nullopt;
  s.remove_prefix(n);
  return v;
}

bool take_dot(std::string_view& s) {
  if (s.empty() || s.front() != '.') return false;
  s.remove_prefix(1);
  return true;
}

}  // namespace

std::optional<NcclVersionString> parse_nccl_version_string(std::string_view s) {
  constexpr std::string_view kPrefix = "NCCL version ";
  if (s.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  s.remove_prefix(kPrefix.size());
  auto major = take_number(s);
  if (!major || !take_dot(s)) return std::nullopt;
  auto minor = take_number(s);
  if (!minor || !take_dot(s)) return std::nullopt;
  auto patch = take_number(s);
  if (!patch || *minor > 99 || *patch > 99) return std::nullopt;
  NcclVersionString v;
  v.version = std::to_string(*major) + "." + std::to_string(*minor) + "." + std::to_string(*patch);
  // NCCL_VERSION(X,Y,Z) of src/nccl.h.in: the wide form from 2.9 on.
  const bool wide = *major > 2 || (*major == 2 && *minor >= 9);
  v.code = *major * (wide ? 10000 : 1000) + *minor * 100 + *patch;
  if (auto c = s.find("+cuda"); c != std::string_view::npos) {
    std::string_view rest = s.substr(c + 5);
    auto cmaj = take_number(rest);
    if (cmaj && take_dot(rest)) {
      if (auto cmin = take_number(rest)) v.cuda = std::to_string(*cmaj) + "." + std::to_string(*cmin);
    }
  }
  return v;
}

}  // namespace plumb
