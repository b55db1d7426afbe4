// vendor/elf_strings: a string out of an ELF file's .rodata without loading it, on the fake NCCL
// library built here, on the real libnccl.so.2 of /usr/local/cuda (against its own ncclGetVersion),
// and on built and broken ELF files.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

#include "vendor/cuda_loader.h"
#include "vendor/elf_strings.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;

ElfReadAt reader_of(const std::string& bytes) {
  return [bytes](std::uint64_t off, std::size_t n) -> std::optional<std::string> {
    if (off > bytes.size() || n > bytes.size() - off) return std::nullopt;
    return bytes.substr(off, n);
  };
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Reads the ranges asked for only (the real libnccl.so.2 is 200 MB and more).
ElfReadAt file_reader(const std::string& path) {
  auto in = std::make_shared<std::ifstream>(path, std::ios::binary);
  return [in](std::uint64_t off, std::size_t n) -> std::optional<std::string> {
    std::string buf(n, '\0');
    in->clear();
    in->seekg(static_cast<std::streamoff>(off));
    in->read(buf.data(), static_cast<std::streamsize>(n));
    if (static_cast<std::size_t>(in->gcount()) != n) return std::nullopt;
    return buf;
  };
}

bool nccl_string(std::string_view s) { return parse_nccl_version_string(s).has_value(); }

template <class T>
void put(std::string& d, std::size_t off, T v) {
  std::memcpy(d.data() + off, &v, sizeof v);
}

// A little-endian ELF64 file with sections: [0] null, [1] `name` holding `body`, [2] .shstrtab.
std::string build_elf(const std::string& name, const std::string& body) {
  const std::string names = std::string("\0", 1) + name + '\0' + ".shstrtab" + '\0';
  std::string d(64, '\0');
  d.replace(0, 4, "\x7f" "ELF");
  d[4] = 2;  // ELFCLASS64
  d[5] = 1;  // ELFDATA2LSB
  d[6] = 1;  // EV_CURRENT
  const std::uint64_t body_at = d.size();
  d += body;
  const std::uint64_t names_at = d.size();
  d += names;
  const std::uint64_t table_at = d.size();
  d.append(3 * 64, '\0');
  put<std::uint64_t>(d, 0x28, table_at);
  put<std::uint16_t>(d, 0x34, 64);  // e_ehsize
  put<std::uint16_t>(d, 0x3A, 64);  // e_shentsize
  put<std::uint16_t>(d, 0x3C, 3);   // e_shnum
  put<std::uint16_t>(d, 0x3E, 2);   // e_shstrndx
  auto section = [&](std::size_t i, std::uint32_t name_off, std::uint32_t type, std::uint64_t at, std::uint64_t size) {
    const std::size_t s = table_at + i * 64;
    put<std::uint32_t>(d, s, name_off);
    put<std::uint32_t>(d, s + 4, type);
    put<std::uint64_t>(d, s + 0x18, at);
    put<std::uint64_t>(d, s + 0x20, size);
  };
  section(1, 1, 1 /* SHT_PROGBITS */, body_at, body.size());
  section(2, static_cast<std::uint32_t>(name.size() + 2), 3 /* SHT_STRTAB */, names_at, names.size());
  return d;
}

TEST(NcclVersionString, ParsesWhatNcclPrints) {
  auto v = parse_nccl_version_string("NCCL version 2.28.9+cuda13.0");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->code, 22809);
  EXPECT_EQ(v->version, "2.28.9");
  EXPECT_EQ(v->cuda, "13.0");
  auto old = parse_nccl_version_string("NCCL version 2.8.4+cuda11.2");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->code, 2804);  // before 2.9: X*1000 + Y*100 + Z
  auto bare = parse_nccl_version_string("NCCL version 2.21.5");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->code, 22105);
  EXPECT_EQ(bare->cuda, "");
  for (const char* bad : {"NCCL version %s", "NCCL version 2.x.1", "NCCL version 2.21", "NCCL version 2.100.1",
                          "NCCL version 2.21.100", "NCCL version 999999.1.1", "Mismatched NCCL version 2.1.1", ""}) {
    EXPECT_FALSE(parse_nccl_version_string(bad)) << bad;
  }
}

TEST(ElfStrings, TheFakeNcclLibraryNamesTheVersionOfItsHeader) {
  const std::string lib = std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-nccl.so";
  std::string s = find_elf_section_string(reader_of(file_bytes(lib)), ".rodata", "NCCL version ", nccl_string);
  EXPECT_EQ(s, "NCCL version 2.21.5+cuda12.4");  // tests/fixtures/gpu/cuda-12.4-runfile/.../nccl.h
  LibVersion got = probe_library_version("nccl", lib);
  ASSERT_TRUE(got.raw) << got.error;
  EXPECT_EQ(parse_nccl_version_string(s)->code, *got.raw);
}

TEST(ElfStrings, TheRealNcclAgreesWithItsOwnGetter) {
  std::string lib;
  for (const char* d : {"/usr/local/cuda/lib64", "/usr/local/cuda/lib", "/usr/local/cuda/targets/x86_64-linux/lib"}) {
    if (fs::exists(std::string(d) + "/libnccl.so.2")) lib = std::string(d) + "/libnccl.so.2";
  }
  if (lib.empty()) GTEST_SKIP() << "no libnccl.so.2 under /usr/local/cuda on this machine";
  std::string s = find_elf_section_string(file_reader(lib), ".rodata", "NCCL version ", nccl_string);
  auto parsed = parse_nccl_version_string(s);
  ASSERT_TRUE(parsed) << "no NCCL version string in the .rodata of " << lib;
  LibVersion got = probe_library_version("nccl", lib);
  ASSERT_TRUE(got.raw) << got.error;
  EXPECT_EQ(parsed->code, *got.raw) << s;
  EXPECT_EQ(parsed->version, got.version);
}

TEST(ElfStrings, BuiltFilesAndTheirBreakages) {
  const std::string body = std::string("x\0NCCL version %s\0NCCL version 2.19.3+cuda12.2\0tail", 50);
  const std::string elf = build_elf(".rodata", body);
  EXPECT_EQ(find_elf_section_string(reader_of(elf), ".rodata", "NCCL version ", nccl_string), "NCCL version 2.19.3+cuda12.2");
  // The first string that begins with the prefix, when anything goes.
  EXPECT_EQ(find_elf_section_string(reader_of(elf), ".rodata", "NCCL version ", [](std::string_view) { return true; }),
            "NCCL version %s");
  EXPECT_EQ(find_elf_section_string(reader_of(elf), ".data", "NCCL version ", nccl_string), "");
  EXPECT_EQ(find_elf_section_string(reader_of(build_elf(".rodata.cst", body)), ".rodata", "NCCL version ", nccl_string), "");
  // A string without its NUL stops at the limit or the section's end.
  ElfStringLimits small;
  small.max_string = 16;
  EXPECT_EQ(find_elf_section_string(reader_of(build_elf(".rodata", "NCCL version 2.19.3")), ".rodata", "NCCL",
                                    [](std::string_view) { return true; }, small),
            "NCCL version 2.1");
  small.max_section = 8;
  EXPECT_EQ(find_elf_section_string(reader_of(elf), ".rodata", "NCCL version ", nccl_string, small), "");
  // Every truncation of the file, and every byte of its header and table set to 0xff, is no match
  // or the right one, never a read outside the buffer (ASan watches this test).
  for (std::size_t n = 0; n < elf.size(); ++n) {
    std::string s = find_elf_section_string(reader_of(elf.substr(0, n)), ".rodata", "NCCL version ", nccl_string);
    EXPECT_TRUE(s.empty() || s == "NCCL version 2.19.3+cuda12.2") << n;
  }
  for (std::size_t i = 0; i < elf.size(); ++i) {
    std::string broken = elf;
    broken[i] = static_cast<char>(0xff);
    std::string s = find_elf_section_string(reader_of(broken), ".rodata", "NCCL version ", nccl_string);
    EXPECT_TRUE(s.empty() || s.rfind("NCCL version ", 0) == 0) << i;
  }
  // Sections are read in 64 KiB windows: a string across a window's end, or at the start of the
  // next, is found once and whole.
  for (std::size_t at : {std::size_t{65536 - 20}, std::size_t{65536}, std::size_t{65536 - 1}, std::size_t{3 * 65536 + 7}}) {
    std::string big(at, 'x');
    big += std::string("\0NCCL version 2.19.3+cuda12.2\0", 30);
    big.append(70000, 'y');
    int calls = 0;
    EXPECT_EQ(find_elf_section_string(reader_of(build_elf(".rodata", big)), ".rodata", "NCCL version ",
                                      [&calls](std::string_view str) {
                                        ++calls;
                                        return str == "NCCL version 2.19.3+cuda12.2";
                                      }),
              "NCCL version 2.19.3+cuda12.2")
        << at;
    EXPECT_EQ(calls, 1) << at;
  }
  std::string elf32 = elf;
  elf32[4] = 1;  // ELFCLASS32
  EXPECT_EQ(find_elf_section_string(reader_of(elf32), ".rodata", "NCCL version ", nccl_string), "");
  std::string big_endian = elf;
  big_endian[5] = 2;
  EXPECT_EQ(find_elf_section_string(reader_of(big_endian), ".rodata", "NCCL version ", nccl_string), "");
  EXPECT_EQ(find_elf_section_string(reader_of("not an ELF file at all, just text of some length....."), ".rodata", "N",
                                    nccl_string),
            "");
}

}  // namespace
}  // namespace plumb
