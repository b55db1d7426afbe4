// Fuzzes the ELF section string reader (the NCCL version string of a library's .rodata).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "vendor/elf_strings.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  plumb::ElfReadAt read = [&bytes](std::uint64_t off, std::size_t n) -> std::optional<std::string> {
    if (off > bytes.size() || n > bytes.size() - off) return std::nullopt;
    return bytes.substr(off, n);
  };
  std::string s = plumb::find_elf_section_string(read, ".rodata", "NCCL version ", [](std::string_view str) {
    return plumb::parse_nccl_version_string(str).has_value();
  });
  (void)plumb::parse_nccl_version_string(std::string_view(bytes).substr(0, 64));
  if (s.size() > 256) __builtin_trap();  // the limit on a match held
  return 0;
}
