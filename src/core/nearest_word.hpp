#pragma once
// The nearest valid word to a mistyped one, for messages that say what was meant: "unknown key 'loss.epsilom';
// did you mean 'loss.epsilon'?". Used by the command line (commands, options) and by the config schema (sections,
// keys, values), so that every refusal of a name suggests the same way.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace noiselearn {

// Optimal-string-alignment distance: an insertion, a deletion, a substitution or a transposition of two
// adjacent characters costs 1 each, so "trian" is 1 from "train" (plain Levenshtein says 2).
int edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` if it is a plausible typo of it (at most one edit per three characters,
// at least one edit allowed; leading dashes are not counted); the first of equally near candidates.
std::optional<std::string> nearest_word(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean 'X'?" for the nearest candidate, or "" when none is a plausible typo.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace noiselearn
