// "Did you mean": the closest known name to a mistyped one.
#pragma once

#include <string>
#include <vector>

namespace plumb {

std::size_t edit_distance(const std::string& a, const std::string& b);
// The candidate closest to `word`, or empty when nothing is reasonably close.
std::string closest(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace plumb
