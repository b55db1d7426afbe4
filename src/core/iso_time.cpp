// The wall-clock time stamps of reports, benchmark contexts and exports.
#include "core/iso_time.h"

#include <ctime>

namespace plumb {

std::string now_iso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace plumb
