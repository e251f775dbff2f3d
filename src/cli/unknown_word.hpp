#pragma once
// When CLI11 refuses a command line, name the word it did not know and the nearest valid one:
// "unknown command 'trian'; did you mean 'train'?" instead of "A subcommand is required".
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/nearest_word.hpp"

namespace noiselearn::cli {

// edit_distance and nearest_word: core/nearest_word.hpp.
using noiselearn::did_you_mean;
using noiselearn::edit_distance;
using noiselearn::nearest_word;

// For a command line that `app` refused to parse (`arguments` without the program name): one line naming
// an unknown command or option and the nearest valid one, or nullopt when every word is known (then the
// parser's own message is the right one).
std::optional<std::string> explain_unknown_word(const CLI::App& app, const std::vector<std::string>& arguments);

}  // namespace noiselearn::cli
