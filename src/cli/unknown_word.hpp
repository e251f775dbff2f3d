#pragma once
// When CLI11 refuses a command line, name the word it did not know and the nearest valid one:
// "unknown command 'trian'; did you mean 'train'?" instead of "A subcommand is required".
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace noiselearn::cli {

// Optimal-string-alignment distance: an insertion, a deletion, a substitution or a transposition of two
// adjacent characters costs 1 each, so "trian" is 1 from "train" (plain Levenshtein says 2).
int edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` if it is a plausible typo of it (at most one edit per three characters,
// at least one edit allowed); the first of equally near candidates.
std::optional<std::string> nearest_word(std::string_view word, const std::vector<std::string>& candidates);

// For a command line that `app` refused to parse (`arguments` without the program name): one line naming
// an unknown command or option and the nearest valid one, or nullopt when every word is known (then the
// parser's own message is the right one).
std::optional<std::string> explain_unknown_word(const CLI::App& app, const std::vector<std::string>& arguments);

}  // namespace noiselearn::cli
