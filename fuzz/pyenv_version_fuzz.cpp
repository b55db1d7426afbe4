// Fuzzes the pyenv version-file parser (.python-version, <PYENV_ROOT>/version).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/pyenv.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto names = plumb::parse_pyenv_version_file(std::string_view(reinterpret_cast<const char*>(data), size));
  for (const auto& n : names) {
    if (n.empty() || n.find('/') != std::string::npos) __builtin_trap();  // words, never paths
  }
  return 0;
}
