// "100ms", "1s", "1.5s", "2m", "1h": durations on the command line, with one-line errors.
#pragma once

#include <chrono>
#include <string_view>

#include "core/result.h"

namespace plumb::watch {

// A positive duration: a number with a unit (ms, s, m, h) or a bare number of seconds (as
// timeout(1) and sleep(1) read it). Every duration option of plumb reads its value here.
Result<std::chrono::milliseconds> parse_duration(std::string_view text);
// 1500ms -> "1.5s", 120000ms -> "2m".
std::string format_duration(std::chrono::milliseconds d);

}  // namespace plumb::watch
