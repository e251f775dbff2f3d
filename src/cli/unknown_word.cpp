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

}  // namespace

std::optional<std::string> explain_unknown_word(const CLI::App& app, const std::vector<std::string>& arguments) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    commands.push_back(sub->get_name());
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
        return fmt::format("unknown command '{}'{} (commands: {})", token, did_you_mean(token, commands),
                           listed(commands));
    return std::nullopt;
  }
  std::vector<std::string> known = option_words(*command);
  const std::vector<std::string> global = option_words(app);
  known.insert(known.end(), global.begin(), global.end());
  for (const auto& token : arguments) {
    if (token.size() < 2 || token.front() != '-' || token == "--" || is_number(token)) continue;
    const std::string name = token.substr(0, token.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    const bool short_with_value =
        token[1] != '-' && std::find(known.begin(), known.end(), token.substr(0, 2)) != known.end();
    if (short_with_value) continue;  // "-n4" is -n with the value 4
    return fmt::format("unknown option '{}' for {}{} (see noiselearn {} --help)", name, command->get_name(),
                       did_you_mean(name, known), command->get_name());
  }
  return std::nullopt;
}

}  // namespace noiselearn::cli
