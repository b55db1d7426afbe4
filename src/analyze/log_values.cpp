// Values read from matched log lines (see log_values.h).
#include "analyze/log_values.h"

#include <regex>
#include <utility>
#include <vector>

namespace plumb {

struct LogValuePatterns::Impl {
  std::vector<std::pair<std::string, std::regex>> patterns;
};

LogValuePatterns::LogValuePatterns() : impl_(std::make_unique<Impl>()) {}
LogValuePatterns::~LogValuePatterns() = default;
LogValuePatterns::LogValuePatterns(LogValuePatterns&&) noexcept = default;
LogValuePatterns& LogValuePatterns::operator=(LogValuePatterns&&) noexcept = default;

std::optional<std::string> LogValuePatterns::add(std::string name, const std::string& ecmascript) {
  try {
    impl_->patterns.emplace_back(std::move(name), std::regex(ecmascript, std::regex::ECMAScript | std::regex::optimize));
  } catch (const std::regex_error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::size_t LogValuePatterns::size() const { return impl_->patterns.size(); }

const std::string& LogValuePatterns::name(std::size_t i) const { return impl_->patterns.at(i).first; }

std::optional<std::string> LogValuePatterns::first_group(std::size_t i, std::string_view text) const {
  std::match_results<std::string_view::const_iterator> m;
  if (std::regex_search(text.begin(), text.end(), m, impl_->patterns.at(i).second) && m.size() > 1 && m[1].matched) {
    return m[1].str();
  }
  return std::nullopt;
}

}  // namespace plumb
