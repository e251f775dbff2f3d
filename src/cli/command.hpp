#pragma once
// A subcommand: its CLI11 app (options bound to state the command owns) and what it does when selected.
#include <CLI/CLI.hpp>

#include <functional>

namespace noiselearn::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<void()> run;
};

Command make_baseline_command(CLI::App& parent);
Command make_evaluate_command(CLI::App& parent);
Command make_compare_command(CLI::App& parent);
Command make_train_command(CLI::App& parent);
Command make_plot_command(CLI::App& parent);
Command make_config_keys_command(CLI::App& parent);
Command make_maxl_command(CLI::App& parent);
Command make_pac_command(CLI::App& parent);
Command make_sample_command(CLI::App& parent);
Command make_boost_command(CLI::App& parent);
Command make_sweep_command(CLI::App& parent);
Command make_collect_command(CLI::App& parent);
Command make_lp_optimum_command(CLI::App& parent);
Command make_account_command(CLI::App& parent);

}  // namespace noiselearn::cli
