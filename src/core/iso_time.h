// The wall-clock time stamps of reports, benchmark contexts and exports.
#pragma once

#include <optional>
#include <string>

namespace plumb {

// The current UTC time as ISO 8601 to the second: "2024-05-01T12:34:56Z".
std::string now_iso8601();
// The UTC time `seconds_ago` before now, in the same form (the cut-off of a --since or a retention).
std::string iso8601_seconds_ago(long long seconds_ago);

// Seconds since the epoch of a time in that form; nothing for any other text.
std::optional<long long> parse_iso8601(const std::string& iso);

}  // namespace plumb
