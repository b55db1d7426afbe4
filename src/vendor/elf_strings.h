// A string constant out of an ELF shared object, read from its section table without loading the
// file (no constructor of it runs). Layout from the System V gABI, "Object Files" chapter (the ELF
// header, the section header table, the section name string table); little-endian ELF64 only, the
// format of every x86-64 and aarch64 Linux library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace plumb {

// Reads exactly `size` bytes at `offset` of the file, or nullopt (short file, I/O error).
using ElfReadAt = std::function<std::optional<std::string>(std::uint64_t offset, std::size_t size)>;

struct ElfStringLimits {
  std::uint64_t max_section = 16u << 20;  // a larger section is not read
  std::size_t max_table = 1u << 20;       // the section header table and the name table, each
  std::size_t max_string = 256;           // the match is cut here when no NUL ends it sooner
};

// Every string of section `section` (".rodata") that begins with `prefix`, up to its NUL, passed
// to `accept` in file order until `accept` returns true; returns that string, or empty when no
// such section, no match, or the file is not a little-endian ELF64 (garbage is never an error).
std::string find_elf_section_string(const ElfReadAt& read, std::string_view section, std::string_view prefix,
                                    const std::function<bool(std::string_view)>& accept,
                                    const ElfStringLimits& limits = {});

// NCCL's src/init.cc keeps `VERSION_STRING` ("NCCL version " MAJOR "." MINOR "." PATCH SUFFIX
// "+cuda" CUDA_MAJOR "." CUDA_MINOR; some builds name CUDA in a string of its own) in .rodata "so that
// running strings on the lib can quickly reveal the version". "NCCL version 2.28.9+cuda13.0" ->
// {22809, "2.28.9", "13.0"}; nullopt unless three numbers follow the prefix.
struct NcclVersionString {
  int code = 0;             // ncclGetVersion's encoding (X*10000+Y*100+Z from 2.9, X*1000+Y*100+Z before)
  std::string version;      // "2.28.9"
  std::string cuda;         // "13.0", empty when the string names none
};
std::optional<NcclVersionString> parse_nccl_version_string(std::string_view s);

}  // namespace plumb
