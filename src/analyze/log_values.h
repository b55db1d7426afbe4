// The values `plumb diagnose` reads from a log line a signature matched: one ECMAScript regular
// expression per value, whose first group is the value. Kept apart from the scan (log_scan.cpp),
// which is compiled at -O3 in every build type: std::regex is only ever run on matched lines, so
// it needs no such optimisation, and GCC 12 reports false -Wmaybe-uninitialized inside
// libstdc++'s <regex> when it is inlined at -O3 under the sanitizers.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace plumb {

class LogValuePatterns {
 public:
  LogValuePatterns();
  ~LogValuePatterns();
  LogValuePatterns(LogValuePatterns&&) noexcept;
  LogValuePatterns& operator=(LogValuePatterns&&) noexcept;
  LogValuePatterns(const LogValuePatterns&) = delete;
  LogValuePatterns& operator=(const LogValuePatterns&) = delete;

  // Compiles `ecmascript` for the value `name`; the regex library's message when it does not compile.
  std::optional<std::string> add(std::string name, const std::string& ecmascript);
  std::size_t size() const;
  const std::string& name(std::size_t i) const;
  // The first group of pattern i's first match in `text`, when it matched.
  std::optional<std::string> first_group(std::size_t i, std::string_view text) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace plumb
