#pragma once
// "1 epoch", "2 epochs": a count with its noun in the right number, for every message that prints a count.
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace noiselearn {

// `plural` defaults to singular + "s" ("composition" -> "compositions").
inline std::string counted_noun(int64_t count, std::string_view singular, std::string_view plural = {}) {
  if (count == 1 || count == -1) return fmt::format("{} {}", count, singular);
  return plural.empty() ? fmt::format("{} {}s", count, singular) : fmt::format("{} {}", count, plural);
}

}  // namespace noiselearn
