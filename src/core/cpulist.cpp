// cpuset(7) list format parser; see core/cpulist.h.
#include "core/cpulist.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/host_root.h"
#include "core/text.h"

namespace plumb {

Result<std::vector<int>> parse_cpulist(std::string_view text) {
  text = trim(text);
  std::vector<bool> seen;  // indexed by CPU number, at most kCpuNumberLimit long
  for (auto part : split(text, ',')) {
    if (text.empty()) break;  // an empty list is valid
    part = trim(part);
    if (part.empty()) return make_error(ErrorKind::invalid, "empty item in CPU list");
    auto shown = [&] { return "'" + std::string(part.substr(0, 24)) + "'"; };
    auto dash = part.find('-');
    auto lo = parse_uint(part.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : parse_uint(part.substr(dash + 1));
    if (!lo || !hi) return make_error(ErrorKind::invalid, "bad CPU list item " + shown());
    if (*lo > *hi) return make_error(ErrorKind::invalid, "reversed CPU range " + shown());
    if (*hi >= static_cast<std::uint64_t>(kCpuNumberLimit)) {
      return make_error(ErrorKind::invalid, "CPU number above " + std::to_string(kCpuNumberLimit - 1) + " in " + shown());
    }
    if (seen.size() <= *hi) seen.resize(*hi + 1, false);
    std::fill(seen.begin() + static_cast<std::ptrdiff_t>(*lo), seen.begin() + static_cast<std::ptrdiff_t>(*hi) + 1, true);
  }
  std::vector<int> cpus;
  for (std::size_t c = 0; c < seen.size(); ++c) {
    if (seen[c]) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

}  // namespace plumb
