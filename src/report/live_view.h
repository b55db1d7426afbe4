// What `plumb watch` shows while it samples: a screen refreshed in place on a terminal, one
// plain line per sample otherwise (logs, pipes).
#pragma once

#include <string>

#include "core/facts/watch.h"
#include "core/i18n.h"

namespace plumb::watch {

// The whole screen for the latest sample (the caller moves the cursor home and clears).
std::string live_screen(const WatchFacts& header, const WatchSample& s, Lang lang);
// One line for the sample, no control characters.
std::string live_line(const WatchSample& s, Lang lang);

}  // namespace plumb::watch
