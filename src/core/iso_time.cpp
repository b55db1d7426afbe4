// The wall-clock time stamps of reports, benchmark contexts and exports.
#include "core/iso_time.h"

#include <ctime>

namespace plumb {

std::string now_iso8601() { return iso8601_seconds_ago(0); }

std::string iso8601_seconds_ago(long long seconds_ago) {
  std::time_t t = std::time(nullptr) - static_cast<std::time_t>(seconds_ago);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<long long> parse_iso8601(const std::string& iso) {
  std::tm tm{};
  const char* end = ::strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<long long>(::timegm(&tm));
}

}  // namespace plumb
