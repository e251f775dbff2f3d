// noiselearn config-keys [train|maxl|pac]: every config key of a command with its default, unit and meaning
// (Markdown), from the same schema that parses its configs.
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "io/solver_configs.hpp"
#include "io/training_config.hpp"

namespace noiselearn::cli {

Command make_config_keys_command(CLI::App& parent) {
  auto kind = std::make_shared<std::string>("train");
  CLI::App* app = parent.add_subcommand(
      "config-keys", "Print every config key of train, maxl or pac with its default, unit and meaning");
  app->add_option("command", *kind, "Whose keys: train (default), maxl or pac")
      ->check(CLI::IsMember({"train", "maxl", "pac"}));
  return Command{app, [kind] {
                   if (*kind == "maxl")
                     std::cout << MaximalLeakageConfig::markdown_reference();
                   else if (*kind == "pac")
                     std::cout << PacPrivacyConfig::markdown_reference();
                   else
                     std::cout << TrainingConfig::markdown_reference();
                 }};
}

}  // namespace noiselearn::cli
