// Levenshtein distance for "did you mean" hints on ids, keys and subcommands.
#include "core/suggest.h"

#include <algorithm>

namespace plumb {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = static_cast<std::size_t>(-1);
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(word, c);
    // A candidate that starts with the word is a good hint even when far in edits.
    if (c.rfind(word, 0) == 0) d = std::min<std::size_t>(d, 1);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  return best_d <= limit ? best : std::string();
}

}  // namespace plumb
