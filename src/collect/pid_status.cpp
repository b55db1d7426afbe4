// /proc/<pid>/status parser; see collect/pid_status.h.
#include "collect/pid_status.h"

#include <vector>

#include "core/host_root.h"
#include "core/text.h"

namespace plumb {

PidStatus parse_pid_status(std::string_view text) {
  PidStatus s;
  for (auto line : split_lines(text)) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, colon));
    if (key.empty()) continue;
    std::string_view value = trim(line.substr(colon + 1));
    s.fields.emplace(std::string(key), std::string(value));
    if (key == "VmRSS" && !s.rss_bytes) {
      auto f = split_ws(value);  // "6716 kB"
      auto v = !f.empty() && (f.size() == 1 || (f.size() == 2 && f[1] == "kB")) ? parse_uint(f[0]) : std::nullopt;
      if (v && *v <= (UINT64_MAX >> 10)) s.rss_bytes = *v * 1024;
    } else if (key == "Threads" && !s.threads) {
      auto v = parse_uint(value);
      if (v && *v < 1u << 24) s.threads = static_cast<int>(*v);
    }
  }
  return s;
}

}  // namespace plumb
