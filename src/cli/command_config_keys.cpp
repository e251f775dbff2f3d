// noiselearn config-keys: every training config key with its default, unit and meaning (Markdown), from the
// same schema that parses configs.
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "io/training_config.hpp"

namespace noiselearn::cli {

Command make_config_keys_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("config-keys", "Print every training config key with its default, unit and meaning");
  return Command{app, [] { std::cout << TrainingConfig::markdown_reference(); }};
}

}  // namespace noiselearn::cli
