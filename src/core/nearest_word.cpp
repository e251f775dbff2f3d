#include "core/nearest_word.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace noiselearn {

int edit_distance(std::string_view a, std::string_view b) {
  const size_t m = a.size(), n = b.size();
  // d[i][j]: distance between the first i characters of a and the first j of b.
  std::vector<std::vector<int>> d(m + 1, std::vector<int>(n + 1, 0));
  for (size_t i = 0; i <= m; ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= n; ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= m; ++i)
    for (size_t j = 1; j <= n; ++j) {
      const int substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[m][n];
}

std::optional<std::string> nearest_word(std::string_view word, const std::vector<std::string>& candidates) {
  // Dashes are not letters a user mistypes: "-x" against "--x" is not a typo of the name.
  const auto bare = [](std::string_view w) {
    while (!w.empty() && w.front() == '-') w.remove_prefix(1);
    return w;
  };
  const std::string_view name = bare(word);
  const int allowed = std::max(1, static_cast<int>(name.size()) / 3);
  std::optional<std::string> best;
  int best_distance = allowed + 1;
  for (const auto& candidate : candidates) {
    const int distance = edit_distance(name, bare(candidate));
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto nearest = nearest_word(word, candidates);
  return nearest ? fmt::format("; did you mean '{}'?", *nearest) : "";
}

}  // namespace noiselearn
