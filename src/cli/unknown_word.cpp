#include "cli/unknown_word.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace noiselearn::cli {

namespace {

bool is_number(const std::string& token) {
  if (token.empty()) return false;
  char* end = nullptr;
  std::strtod(token.c_str(), &end);
  return end == token.c_str() + token.size();
}

// "--name" and "-n" for every option of `app` (help included).
std::vector<std::string> option_words(const CLI::App& app) {
  std::vector<std::string> words;
  for (const CLI::Option* option : app.get_options()) {
    for (const auto& name : option->get_lnames()) words.push_back("--" + name);
    for (const auto& name : option->get_snames()) words.push_back("-" + name);
  }
  return words;
}

std::string listed(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : ", ") + word;
  return text;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const auto nearest = nearest_word(word, candidates);
  return nearest ? fmt::format("; did you mean '{}'?", *nearest) : "";
}

}  // namespace

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
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
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

std::optional<std::string> explain_unknown_word(const CLI::App& app, const std::vector<std::string>& arguments) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) commands.push_back(sub->get_name());
  const CLI::App* command = nullptr;
  for (const auto& token : arguments)
    if (std::find(commands.begin(), commands.end(), token) != commands.end()) {
      command = app.get_subcommand(token);
      break;
    }
  if (command == nullptr) {
    // The first word that is neither an option nor a number (the value of --threads) was meant as the command.
    for (const auto& token : arguments)
      if (!token.empty() && token.front() != '-' && !is_number(token))
        return fmt::format("unknown command '{}'{} (commands: {})", token, did_you_mean(token, commands), listed(commands));
    return std::nullopt;
  }
  std::vector<std::string> known = option_words(*command);
  const std::vector<std::string> global = option_words(app);
  known.insert(known.end(), global.begin(), global.end());
  for (const auto& token : arguments) {
    if (token.size() < 2 || token.front() != '-' || token == "--" || is_number(token)) continue;
    const std::string name = token.substr(0, token.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    const bool short_with_value = token[1] != '-' && std::find(known.begin(), known.end(), token.substr(0, 2)) != known.end();
    if (short_with_value) continue;  // "-n4" is -n with the value 4
    return fmt::format("unknown option '{}' for {}{} (see noiselearn {} --help)", name, command->get_name(),
                       did_you_mean(name, known), command->get_name());
  }
  return std::nullopt;
}

}  // namespace noiselearn::cli
