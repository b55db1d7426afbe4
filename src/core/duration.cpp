// Duration options of watch and exporter.
#include "core/duration.h"

#include <cmath>
#include <string>

#include "core/host_root.h"
#include "core/text.h"

namespace plumb::watch {

Result<std::chrono::milliseconds> parse_duration(std::string_view text) {
  std::string_view s = trim(text);
  std::string shown(s);
  std::size_t i = 0;
  while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.')) ++i;
  std::string_view number = s.substr(0, i), unit = s.substr(i);
  auto v = parse_double(number);
  if (!v) return make_error(ErrorKind::invalid, "'" + shown + "' is not a duration (examples: 100ms, 1s, 2m, 1h)");
  double ms_per = 0;
  if (unit == "ms") ms_per = 1;
  else if (unit == "s") ms_per = 1000;
  else if (unit == "m" || unit == "min") ms_per = 60000;
  else if (unit == "h") ms_per = 3600000;
  else if (unit.empty()) ms_per = 1000;  // a bare number is seconds, as for timeout(1) and sleep(1)
  else return make_error(ErrorKind::invalid, "'" + shown + "': unknown unit '" + std::string(unit) + "' (use ms, s, m or h)");
  double ms = *v * ms_per;
  if (!(ms >= 1) || ms > 1e12) return make_error(ErrorKind::invalid, "'" + shown + "' is out of range (1ms .. 30 years)");
  return std::chrono::milliseconds(static_cast<long long>(std::llround(ms)));
}

std::string format_duration(std::chrono::milliseconds d) {
  auto ms = d.count();
  if (ms % 3600000 == 0) return std::to_string(ms / 3600000) + "h";
  if (ms % 60000 == 0) return std::to_string(ms / 60000) + "m";
  if (ms >= 1000) return fmt_num(static_cast<double>(ms) / 1000.0, 3) + "s";
  return std::to_string(ms) + "ms";
}

}  // namespace plumb::watch
