#pragma once
// Setting up a `noiselearn train` run: the config read and checked, every option struct, the model and the
// loss built, and only then the run directory created and locked, so that bad input (exit 2) leaves nothing
// behind.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "core/dominating_pair.hpp"
#include "core/grid.hpp"
#include "core/utility.hpp"
#include "io/run_directory_lock.hpp"
#include "io/training_config.hpp"
#include "losses/privacy_loss.hpp"
#include "models/noise_model.hpp"
#include "train/trainer.hpp"

namespace noiselearn::cli {

// The command line of `train`.
struct TrainOptions {
  std::string config;
  std::string out;
  std::vector<std::string> overrides;
  std::optional<int64_t> seed;  // --seed: overrides optimiser.seed
  bool force = false;
  bool resume = false;
  bool skip_if_complete = false;  // --skip-if-complete: nothing to do if --out already holds this run, complete
};

// Everything a run needs, resolved from the config before any epoch runs (so bad input fails fast).
struct TrainingSetup {
  TrainingConfig config;
  std::filesystem::path directory;
  std::unique_ptr<RunDirectoryLock> lock;  // held for the whole run
  Grid grid;
  PairSpecification pair;
  AccountantOptions accountant;
  TrainingOptions training;
  std::shared_ptr<NoiseModel> model;
  std::shared_ptr<PrivacyLoss> loss;
};

// Reads the config (with --set and --seed), checks it and everything it names (the initial table, the
// sensitivity against the grid, a resumed run's checkpoint and config.yaml), builds model and loss, then
// prepares and locks the run directory (InputError if another run holds it).
TrainingSetup set_up(const TrainOptions& options);

// --resume: InputError naming the first key of config.yaml in `directory` that differs from `now`, except
// `length_key` (optimiser.epochs for Adam, optimiser.iterations for pgd), which may grow.
void require_same_run(const TrainingConfig& now, const std::filesystem::path& directory, const std::string& length_key);

// The training utility: optimised, matched against the truncated Gaussian, and reported.
UtilitySpecification utility_of(const TrainingConfig& c);

}  // namespace noiselearn::cli
