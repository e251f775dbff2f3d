// noiselearn train CONFIG: the run layer (run/run.hpp) learns a noise table, certifies it, compares it and writes the
// run directory; this file parses the options and prints the run's report.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/cli_common.hpp"
#include "cli/command.hpp"
#include "cli/training_executable.hpp"
#include "core/errors.hpp"
#include "run/run.hpp"

namespace noiselearn::cli {

Command make_train_command(CLI::App& parent) {
  auto o = std::make_shared<RunOptions>();
  auto out = std::make_shared<std::string>();
  CLI::App* app =
      parent.add_subcommand("train", "Learn a noise table from a YAML config, certify it, compare it, plot it");
  app->add_option("config", o->config_path, "YAML configuration (see configs/README.md for every key)")->required();
  app->add_option("--out", *out, "Run directory (default: runs/<config name>)");
  app->add_option("--set", o->overrides, "Override a config key: --set loss.epsilon=0.5 (repeatable)");
  auto seed = std::make_shared<int64_t>(0);
  CLI::Option* seed_option =
      app->add_option("--seed", *seed, "Random seed: overrides the config's optimiser.seed (a whole number >= 0)")
          ->check(CLI::NonNegativeNumber);
  app->add_flag("--force", o->force, "Overwrite a non-empty run directory");
  app->add_flag(
      "--skip-if-complete", o->skip_if_complete,
      "Do nothing if --out already holds a complete, checksum-verified run of this config (what a sweep's jobs "
      "use to be re-runnable); otherwise train as usual");
  app->add_flag("--resume", o->resume,
                "Continue from the run directory's checkpoint.pt (same config; optimiser.epochs, or "
                "optimiser.iterations for pgd, may grow)");
  return Command{app, [o, out, seed, seed_option] {
                   if (seed_option->count() > 0) o->seed = *seed;
                   o->directory = *out;
#if !defined(NOISELEARN_WITH_LEARNERS)
                   // This executable has no LibTorch: the training executable runs the same command line.
                   execute_training_executable();
#else
                   o->read_table = [](const std::filesystem::path& path) { return load_table(path).table; };
                   const RunSummary summary = run(*o);
                   std::cout << summary.report();
                   if (summary.stopped_early)
                     throw InputError(fmt::format("{}; the last good table and its certificate are in {}",
                                                  summary.stop_reason, summary.directory.string()));
#endif
                 }};
}

}  // namespace noiselearn::cli
