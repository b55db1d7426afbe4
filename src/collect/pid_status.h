// /proc/<pid>/status (proc(5)): the one parser, used by the process collector and the watch sampler.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace plumb {

struct PidStatus {
  std::map<std::string, std::string> fields;  // every "Key:\tvalue" line, key and value trimmed
  std::optional<int> threads;                 // "Threads: N"
  std::optional<std::uint64_t> rss_bytes;     // "VmRSS: N kB" (kernel threads have no VmRSS line)
};
// Total: lines without a key are skipped; a repeated key keeps its first value; a Threads or
// VmRSS value that is not a number (or a VmRSS unit other than kB) leaves the typed field empty.
PidStatus parse_pid_status(std::string_view text);

}  // namespace plumb
